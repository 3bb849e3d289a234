Feature: The Idempotency-Key header, as idemkit's Express door answers it
  idemkit's own restatement of what the IETF draft "The Idempotency-Key HTTP Header Field"
  (draft-ietf-httpapi-idempotency-key-header) asks of a server, each behaviour stated with the
  answer idemkit gives. test/doors/idempotency-feature.test.ts runs every scenario through
  `idempotency()` from idemkit/express, on 127.0.0.1, against DynamoDB Local. The handler of
  /orders answers 200 with the number of its run, so an answer tells which run made it.

  Background:
    Given an Express app with idemkit guarding /orders, on a fresh DynamoDB Local journal

  Rule: The first request with a key runs the handler, and its outcome is recorded under the key

    Scenario: A new key runs the handler and its answer is recorded
      When the client sends POST /orders with key "order-1001" and body {"item":"book"}
      Then the answer is 200 from run 1 of the handler
      And the answer is not marked as a replay
      And the journal holds a completed record of key "order-1001" for POST /orders that answered 200

  Rule: A retry with the same key and the same request gets the recorded answer, without a second run

    Scenario: A retry is answered from the journal
      Given the client sent POST /orders with key "order-1002" and body {"item":"lamp"}
      When the client sends POST /orders with key "order-1002" and body {"item":"lamp"}
      Then the answer is 200 from run 1 of the handler
      And the answer is marked as a replay
      And the handler has run 1 time
      And the journal holds a completed record of key "order-1002" for POST /orders that answered 200

    Scenario: However many retries arrive, the handler runs once
      Given the client sent POST /orders with key "order-1003" and body {"item":"lamp"}
      And the client sent POST /orders with key "order-1003" and body {"item":"lamp"}
      And the client sent POST /orders with key "order-1003" and body {"item":"lamp"}
      When the client sends POST /orders with key "order-1003" and body {"item":"lamp"}
      Then the answer is 200 from run 1 of the handler
      And the handler has run 1 time

    Scenario: A key sent as a quoted string is the same key as sent bare
      Given the client sent POST /orders with the key header `"order-1004"` and body {"item":"mug"}
      When the client sends POST /orders with key "order-1004" and body {"item":"mug"}
      Then the answer is 200 from run 1 of the handler
      And the answer is marked as a replay

    Scenario: PATCH is guarded as POST is
      Given the client sent PATCH /orders with key "order-1005" and body {"item":"mug"}
      When the client sends PATCH /orders with key "order-1005" and body {"item":"mug"}
      Then the answer is 200 from run 1 of the handler
      And the answer is marked as a replay

  Rule: A key reused for a different request is refused, and the first outcome stays

    Scenario: The same key with another body is refused 422
      Given the client sent POST /orders with key "order-1006" and body {"item":"book"}
      When the client sends POST /orders with key "order-1006" and body {"item":"pen"}
      Then the answer is the problem "idempotency-key-reused" with status 422
      And the answer does not ask to retry
      And the handler has run 1 time

    Scenario: After a refused reuse, the first request's retry still gets its answer
      Given the client sent POST /orders with key "order-1007" and body {"item":"book"}
      And the client sent POST /orders with key "order-1007" and body {"item":"pen"}
      When the client sends POST /orders with key "order-1007" and body {"item":"book"}
      Then the answer is 200 from run 1 of the handler
      And the answer is marked as a replay

    Scenario: Another key with the same body is another request, and runs
      Given the client sent POST /orders with key "order-1008" and body {"item":"book"}
      When the client sends POST /orders with key "order-1009" and body {"item":"book"}
      Then the answer is 200 from run 2 of the handler
      And the answer is not marked as a replay

  Rule: While the first request with a key runs, a duplicate is refused for now and told when to come back

    Scenario: A duplicate during the first run is refused 409 with Retry-After
      Given POST /orders with key "order-1010" and body {"item":"desk"} is still running
      When the client sends POST /orders with key "order-1010" and body {"item":"desk"}
      Then the answer is the problem "request-in-progress" with status 409
      And the answer asks to retry after 1 second
      And the handler has run 1 time

    Scenario: Once the first run has finished, the duplicate's retry is replayed
      Given POST /orders with key "order-1011" and body {"item":"desk"} is still running
      And the client sent POST /orders with key "order-1011" and body {"item":"desk"}
      When the running request finishes
      Then the answer is 200 from run 1 of the handler
      And the answer is not marked as a replay
      When the client sends POST /orders with key "order-1011" and body {"item":"desk"}
      Then the answer is 200 from run 1 of the handler
      And the answer is marked as a replay
      And the handler has run 1 time

  Rule: A request that must carry a key and carries none is refused, other methods run unguarded

    Scenario Outline: <method> without a key is refused 400
      When the client sends <method> /orders without a key and body {"item":"book"}
      Then the answer is the problem "idempotency-key-missing" with status 400
      And the answer does not ask to retry
      And the handler has run 0 times

      Examples:
        | method |
        | POST   |
        | PATCH  |

    Scenario: GET without a key runs unguarded
      When the client sends GET /orders without a key
      Then the answer is 200 from run 1 of the handler
      And the answer is not marked as a replay

  Rule: A malformed key is refused before the handler runs

    Scenario Outline: The key header `<header>` is refused 400 (<why>)
      When the client sends POST /orders with the key header `<header>` and body {"item":"book"}
      Then the answer is the problem "idempotency-key-invalid" with status 400
      And the handler has run 0 times

      Examples:
        | header           | why                                        |
        |                  | an empty value                             |
        | order,1012       | a bare comma separates two keys            |
        | two words        | a space is not a visible character         |
        | "order-1013      | a quoted string left open                  |

    Scenario: 255 characters is the longest key
      Given the client sent POST /orders with a key of 255 characters and body {"item":"book"}
      When the client sends POST /orders with a key of 256 characters and body {"item":"book"}
      Then the answer is the problem "idempotency-key-invalid" with status 400
      And the handler has run 1 time

    Scenario: A quoted key may hold a comma
      When the client sends POST /orders with the key header `"order,1014"` and body {"item":"book"}
      Then the answer is 200 from run 1 of the handler
      And the journal holds a completed record of key "order,1014" for POST /orders that answered 200

  Rule: Without its journal, idemkit runs nothing and asks for a retry with the same key

    Scenario: An unreachable journal answers 503 with Retry-After
      Given the journal cannot be reached
      When the client sends POST /orders with key "order-1015" and body {"item":"book"}
      Then the answer is the problem "journal-unavailable" with status 503
      And the answer asks to retry after 1 second
      And the handler has run 0 times

  Rule: A recorded outcome is replayed for the guard's ttlSeconds; after that the key is free again

    Background:
      Given the guard replays an outcome for 60 seconds

    Scenario: A retry inside the window is replayed
      Given the client sent POST /orders with key "order-1016" and body {"item":"book"}
      And 59 seconds pass
      When the client sends POST /orders with key "order-1016" and body {"item":"book"}
      Then the answer is 200 from run 1 of the handler
      And the answer is marked as a replay

    Scenario: After the window, the same request runs again
      Given the client sent POST /orders with key "order-1017" and body {"item":"book"}
      And 61 seconds pass
      When the client sends POST /orders with key "order-1017" and body {"item":"book"}
      Then the answer is 200 from run 2 of the handler
      And the answer is not marked as a replay
      And the handler has run 2 times

    Scenario: After the window, the key may carry a different request
      Given the client sent POST /orders with key "order-1018" and body {"item":"book"}
      And 61 seconds pass
      When the client sends POST /orders with key "order-1018" and body {"item":"pen"}
      Then the answer is 200 from run 2 of the handler
      And the journal holds a completed record of key "order-1018" for POST /orders that answered 200

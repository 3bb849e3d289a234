/**
 * Every record an attempt can meet — status × lease × expiry × fingerprint × effect begun — is
 * answered as DESIGN's table says, in both modes, on DynamoDB Local: expiry is read first (a record
 * past `expiresAt` that nothing holds is a new key), then another request's body is 422 whatever
 * the state, then the state decides. For `effects: 'staged-only'` this is the commit's condition
 * and the reading of its refusal agreeing with the table: a staged-only attempt never overwrites a
 * record the table says it must refuse.
 */
import middy from '@middy/core';
import { GetItemCommand, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import {
  DynamoDBJournal,
  fingerprintOf,
  httpIdempotency,
  type HttpIdempotencyOptions,
  type HttpResponse,
} from '../../src/index.js';
import { defaultRequestFingerprint } from '../../src/http/request-fingerprint.js';
import { viewHttpEvent } from '../../src/http/http-event.js';
import { createJournalTable, localClient } from '../support/dynamodb.js';
import { httpEvent, lambdaContext } from '../support/lambda.js';
import { requestPk } from '../../src/entries/journal.js';

type Status = 'IN_PROGRESS' | 'COMPLETED' | 'UNKNOWN';
interface Situation {
  readonly status: Status;
  readonly lease: 'live' | 'ended';
  readonly expiry: 'past' | 'ahead';
  readonly body: 'same' | 'other';
  readonly effectBegun: boolean;
}
type Expected = 'runs' | 'replays' | 'mismatch' | 'in-progress' | 'needs-review';

/** DESIGN's table, written out on its own: what an attempt meeting `s` must answer. */
function expected(s: Situation): Expected {
  const nothingHolds = s.status === 'COMPLETED' || (s.status === 'IN_PROGRESS' && s.lease === 'ended');
  if (s.expiry === 'past' && nothingHolds) return 'runs';
  if (s.body === 'other') return 'mismatch';
  if (s.status === 'COMPLETED') return 'replays';
  if (s.status === 'UNKNOWN' || (s.effectBegun && s.lease === 'ended')) return 'needs-review';
  return s.lease === 'ended' ? 'runs' : 'in-progress';
}

const situations: Situation[] = [];
for (const status of ['IN_PROGRESS', 'COMPLETED', 'UNKNOWN'] as const)
  for (const lease of ['live', 'ended'] as const)
    for (const expiry of ['past', 'ahead'] as const)
      for (const body of ['same', 'other'] as const)
        for (const effectBegun of [false, true]) situations.push({ status, lease, expiry, body, effectBegun });

const label = (s: Situation) =>
  `${s.status}, lease ${s.lease}, expiry ${s.expiry}, ${s.body} body, effect ${s.effectBegun ? 'begun' : 'not begun'}`;

const client = localClient();
const storedAnswer = { statusCode: 200, headers: { 'content-type': 'application/json' }, body: '{"stored":true}' };

describe.each<[string, Partial<HttpIdempotencyOptions>]>([
  ['effects: staged-only', { effects: 'staged-only' }],
  ['the leased protocol', {}],
])('the decision table under %s, on DynamoDB Local', (_mode, modeOptions) => {
  let tableName: string;
  let journal: DynamoDBJournal;
  beforeAll(async () => {
    tableName = await createJournalTable(client, 'decisions');
    journal = new DynamoDBJournal({ tableName, client });
  });

  it.each(situations.map((s) => [label(s), s, expected(s)] as const))('%s: %s', async (name, s, answerExpected) => {
    const key = `k-${name.replace(/\W+/g, '-')}`;
    const event = httpEvent({ key, body: { amount: 1250 } });
    const pk = requestPk('-', 'POST /payments', key);
    const nowMs = Date.now();
    const fingerprint =
      s.body === 'same' ? fingerprintOf(defaultRequestFingerprint(viewHttpEvent(event))) : 'f'.repeat(64);
    const item: Record<string, unknown> = {
      pk,
      kind: 'request',
      status: s.status,
      fingerprint,
      leaseToken: 'token-of-the-first-attempt',
      leaseUntil: s.lease === 'live' ? nowMs + 60_000 : nowMs - 60_000,
      attempt: 1,
      createdAt: nowMs - 120_000,
      updatedAt: nowMs - 120_000,
      expiresAt: Math.floor(nowMs / 1000) + (s.expiry === 'past' ? -60 : 3600),
      evidence: {},
      effectStarted: s.effectBegun,
    };
    if (s.status === 'COMPLETED')
      Object.assign(item, { responseEncoding: 'json', response: JSON.stringify({ value: storedAnswer }) });
    await client.send(new PutItemCommand({ TableName: tableName, Item: marshall(item) }));
    let runs = 0;
    const guarded = middy(async () => ({ statusCode: 201, body: JSON.stringify({ run: ++runs }) })).use(
      httpIdempotency({ journal, ...modeOptions, logger: { info: () => undefined, error: () => undefined } as never }),
    );

    const answer = (await guarded(event, lambdaContext())) as Required<HttpResponse>;

    const after = unmarshall(
      (await client.send(new GetItemCommand({ TableName: tableName, Key: marshall({ pk }) }))).Item!,
    );
    const problemType = answer.statusCode >= 400 ? JSON.parse(answer.body).type : undefined;
    switch (answerExpected) {
      case 'runs':
        expect({ status: answer.statusCode, runs }).toEqual({ status: 201, runs: 1 });
        expect(after).toMatchObject({
          status: 'COMPLETED',
          fingerprint: fingerprintOf(defaultRequestFingerprint(viewHttpEvent(event))),
        });
        break;
      case 'replays':
        expect(answer).toMatchObject({
          statusCode: 200,
          body: storedAnswer.body,
          headers: { 'Idempotent-Replayed': 'true' },
        });
        expect(after).toEqual(item);
        break;
      case 'mismatch':
        expect({ status: answer.statusCode, problemType }).toEqual({
          status: 422,
          problemType: 'urn:idemkit:problem:idempotency-key-reused',
        });
        expect(after).toEqual(item);
        break;
      case 'in-progress':
        expect({ status: answer.statusCode, problemType }).toEqual({
          status: 409,
          problemType: 'urn:idemkit:problem:request-in-progress',
        });
        expect(after).toEqual(item);
        break;
      case 'needs-review':
        expect({ status: answer.statusCode, problemType }).toEqual({
          status: 409,
          problemType: 'urn:idemkit:problem:needs-review',
        });
        // An abandoned lease after an effect is marked UNKNOWN; nothing else of the record changes hands.
        expect(after).toMatchObject({ status: 'UNKNOWN', fingerprint, leaseToken: expect.any(String) });
        break;
    }
    // Only an attempt that commits may have run its handler to an outcome that stands.
    if (answerExpected !== 'runs') expect(after.fingerprint).toBe(fingerprint);
  });
});

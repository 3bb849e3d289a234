import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { journalOperationOf, type JournalOperation } from './item-calls.js';
import { isThrottleException, ThrottledAttemptsSpent } from './throttling.js';

/**
 * A retry storm on one key concentrates on one partition, and the SDK's own retries (three attempts
 * by default, each after its throttling backoff) would send every refused journal call into it again:
 * a storm amplified threefold. The journal bounds them for its own calls; the caller comes back
 * instead, after the jittered `Retry-After` of a `JournalThrottledError`.
 *
 * How many SDK attempts a throttled journal call gets, by what it is for. A call made before the
 * handler runs (reserve, take over, read) or while it runs (beginEffect, heartbeat, evidence,
 * holdUnique) gets one: refusing it costs nothing the caller cannot redo, and an SDK retry would
 * only press the same hot partition again. A call that settles an outcome the handler produced
 * (complete, release, mark `UNKNOWN`) gets one retry more: a settlement lost holds the key until its
 * lease ends, and a completion lost may cost a rerun of the handler.
 */
const THROTTLED_ATTEMPTS_SETTLING = 2;
const THROTTLED_ATTEMPTS_OTHER = 1;
const SETTLING: ReadonlySet<JournalOperation> = new Set<JournalOperation>([
  'complete',
  'writeChunks',
  'commitStaged',
  'markUnknown',
  'markAbandonedUnknown',
  'release',
  'makeUniquePermanent',
  'letGoUnique',
]);

/**
 * The most SDK attempts a throttled call of `operation` is given (see {@link boundThrottledRetries}).
 *
 * @example throttledAttemptsOf('reserve') // 1
 */
export function throttledAttemptsOf(operation: JournalOperation): number {
  return SETTLING.has(operation) ? THROTTLED_ATTEMPTS_SETTLING : THROTTLED_ATTEMPTS_OTHER;
}

const BOUND_NAME = 'idemkitJournalThrottledAttempts';

/**
 * Bounds the SDK's retries of throttled journal calls on `client` (see {@link throttledAttemptsOf}).
 * It sits inside the SDK's retry loop and acts on the requests the journal tagged only: the client's
 * other calls keep their configuration, and other errors keep the SDK's retries. Once a call's
 * attempts are spent it throws an error the SDK's retry strategy does not retry, carrying DynamoDB's
 * own, which the journal answers with `JournalThrottledError`. Added once per client (by name).
 *
 * @example boundThrottledRetries(new DynamoDBClient({}))
 */
export function boundThrottledRetries(client: Partial<Pick<DynamoDBClient, 'middlewareStack'>>): void {
  // A stand-in with `send` only (a test double) has no retries to bound.
  if (typeof client.middlewareStack?.add !== 'function') return;
  const attemptsByRequest = new WeakMap<object, number>();
  client.middlewareStack.add(
    (next) =>
      async function boundThrottledAttempts(args) {
        try {
          return await next(args);
        } catch (error) {
          const operation = journalOperationOf(args);
          if (operation === undefined || !isThrottleException(error)) throw error;
          // Keyed by the request's input, the one object every attempt of it carries.
          const input = args.input as object;
          const attempts = (attemptsByRequest.get(input) ?? 0) + 1;
          attemptsByRequest.set(input, attempts);
          if (attempts >= throttledAttemptsOf(operation)) throw new ThrottledAttemptsSpent(error);
          throw error;
        }
      },
    // The SDK's retry middleware is `finalizeRequest`, priority high, added when the client is built: this one, added
    // later at the same step and priority, runs inside it, once per attempt.
    { step: 'finalizeRequest', priority: 'high', name: BOUND_NAME, override: true },
  );
}

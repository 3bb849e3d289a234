import { JournalThrottledError } from '../core/index.js';

/**
 * How the journal tells a throttle from an outage: DynamoDB refuses what goes beyond a partition's
 * (or a table's, or an account's) throughput, and such a refusal is answered with
 * {@link JournalThrottledError}, a jittered `Retry-After`, instead of `journal-unavailable`.
 */

/** DynamoDB's exceptions for a request refused over a throughput limit. */
const THROTTLE_NAMES: ReadonlySet<string> = new Set([
  'ProvisionedThroughputExceededException',
  'ThrottlingException',
  'RequestLimitExceeded',
]);

/** The cancellation codes of a transaction's items refused over a throughput limit. */
const THROTTLE_CANCELLATION_CODES: ReadonlySet<string> = new Set([
  'ProvisionedThroughputExceeded',
  'ThrottlingError',
  'RequestLimitExceeded',
]);

/** One of DynamoDB's `ThrottlingReasons` (since 2025): which limit, and the ARN of the table or index it is on. */
type ThrottlingReason = { readonly reason?: string; readonly resource?: string };
/**
 * A throttling exception as the SDK raises it (`ThrottlingException` spells its list `throttlingReasons`), or a
 * cancelled transaction with its per-item reasons.
 */
type ThrottleShape = {
  readonly name?: string;
  readonly CancellationReasons?: ReadonlyArray<{ readonly Code?: string }>;
  readonly ThrottlingReasons?: readonly ThrottlingReason[];
  readonly throttlingReasons?: readonly ThrottlingReason[];
};

/**
 * DynamoDB's throttle once a journal call has spent the SDK attempts it may make
 * (`throttled-retries.ts`): thrown in place of DynamoDB's exception, which the SDK's retry strategy
 * would retry, and read back by {@link throttleOf}. Never leaves the journal.
 */
export class ThrottledAttemptsSpent extends Error {
  constructor(readonly throttle: unknown) {
    super('The journal call was throttled on every attempt it may make', { cause: throttle });
    this.name = 'ThrottledAttemptsSpent';
  }
}

/** Whether an SDK error is one of DynamoDB's throttling exceptions. */
export function isThrottleException(error: unknown): boolean {
  return THROTTLE_NAMES.has((error as ThrottleShape)?.name ?? '');
}

/**
 * The {@link JournalThrottledError} a failed journal call stands for, or undefined when it was no
 * throttle: a throttling exception (carrying DynamoDB's `ThrottlingReasons` when it sent them), or a
 * transaction cancelled because items of it were throttled. The reasons' resource ARNs stay in the
 * `cause`, out of the reasons, which reach the log line's `throttle_reasons`.
 */
export function throttleOf(error: unknown, operation: string): JournalThrottledError | undefined {
  const sdkError = (error instanceof ThrottledAttemptsSpent ? error.throttle : error) as ThrottleShape | undefined;
  const name = sdkError?.name;
  if (name === undefined) return undefined;
  let reasons: string[];
  if (THROTTLE_NAMES.has(name)) {
    const listed = (sdkError?.ThrottlingReasons ?? sdkError?.throttlingReasons ?? [])
      .map((reason) => reason?.reason)
      .filter((reason): reason is string => typeof reason === 'string' && reason.length > 0);
    reasons = listed.length > 0 ? listed : [name];
  } else if (name === 'TransactionCanceledException') {
    const codes = (sdkError?.CancellationReasons ?? []).map((reason) => reason?.Code ?? 'None');
    reasons = codes.filter((code) => THROTTLE_CANCELLATION_CODES.has(code));
    if (reasons.length === 0) return undefined;
  } else {
    return undefined;
  }
  const unique = [...new Set(reasons)];
  return new JournalThrottledError(unique, `Journal ${operation} was throttled: ${unique.join(', ')}`, {
    cause: sdkError,
  });
}

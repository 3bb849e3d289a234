import type { JournalRecord } from './journal-record.js';

/**
 * Every error code the toolkit uses, with the title and HTTP status of the problem answer
 * it becomes at the HTTP edge (RFC 9457). The codes are stable: they end problem `type`
 * URIs and are what callers switch on.
 *
 * `detail`, where given, is the problem's `detail` whatever the error's message says: those
 * errors can carry text from the AWS SDK or the server (an endpoint, a table name, an ARN, an
 * account id) or a record's key, which belong in the log line, never in an answer to the caller.
 * The other codes' messages are written from the request alone and answer as they are.
 */
export const ERROR_CODES = {
  'idempotency-key-missing': { title: 'Idempotency-Key header is required', status: 400 },
  'idempotency-key-invalid': { title: 'Idempotency-Key header is invalid', status: 400 },
  'idempotency-key-reused': { title: 'Idempotency-Key was used with a different request', status: 422 },
  'request-in-progress': { title: 'A request with this Idempotency-Key is in progress', status: 409 },
  'needs-review': { title: 'The outcome of an earlier attempt needs review', status: 409 },
  'uniqueness-conflict': { title: 'A uniqueness rule is already claimed', status: 409 },
  'write-conflict': { title: 'A write conflicted with the current state', status: 409 },
  'journal-unavailable': {
    title: 'The idempotency journal is unavailable',
    status: 503,
    detail: 'The request was not processed. Retry it with the same Idempotency-Key after the Retry-After delay.',
  },
  'journal-throttled': {
    title: 'The idempotency journal is throttling this request',
    status: 429,
    detail:
      'The idempotency journal is over its throughput for now. Retry the request with the same Idempotency-Key after the Retry-After delay.',
  },
  'record-unreadable': {
    title: 'The idempotency record cannot be read',
    status: 500,
    detail:
      'The record of this Idempotency-Key cannot be read, so the request was not processed. Quote the instance to support.',
  },
  'invalid-request': { title: 'The request cannot be processed safely', status: 400 },
  'response-too-large': { title: 'The operation completed but its response was too large to store', status: 500 },
  'response-not-serializable': {
    title: 'The operation completed but its response cannot be represented as JSON',
    status: 500,
    detail: 'The operation completed; do not retry it. Quote the instance to support.',
  },
  'staged-write-failed': {
    title: 'A write the handler queued was refused',
    status: 500,
    detail: "None of the operation's writes were committed. Quote the instance to support.",
  },
  'lease-lost': { title: 'The lease on this idempotency record was taken over', status: 409 },
  'journal-error': { title: 'The idempotency journal failed after the operation ran', status: 500 },
  'not-resolvable': { title: 'The record cannot be resolved in its current state', status: 409 },
  'invalid-options': { title: 'The guard is misconfigured', status: 500 },
  'too-many-writes': {
    title: 'The completion holds more writes than one transaction allows',
    status: 500,
    detail: "None of the operation's writes were committed. Quote the instance to support.",
  },
  'outbox-too-large': {
    title: 'The outbox events do not fit in the record that carries them',
    status: 500,
    detail: "None of the operation's writes were committed. Quote the instance to support.",
  },
  'no-scope': { title: 'No guarded attempt is running with this context', status: 500 },
  'wrong-table': { title: 'The table is not an idempotency journal', status: 500 },
  'unknown-key': { title: 'No record with this key', status: 404 },
  'unknown-table': { title: 'The journal table does not exist', status: 500 },
  'missing-credentials': { title: 'No AWS credentials were found', status: 500 },
  'staged-only': { title: 'The operation is not available to a staged-only handler', status: 500 },
  'missing-dependency': { title: 'An optional peer dependency this destination needs is not installed', status: 500 },
  'multi-region-unsupported': {
    title: 'The operation needs a transaction, which a multi-Region journal has not',
    status: 500,
  },
  'journal-feature-unsupported': {
    title: "The operation needs a transaction or an outbox, which the journal's store has not",
    status: 500,
  },
} as const satisfies Record<string, { readonly title: string; readonly status: number; readonly detail?: string }>;

/** A stable machine-readable error code (see {@link ERROR_CODES}). */
export type ErrorCode = keyof typeof ERROR_CODES;

/**
 * Root of every error the toolkit throws. Check with `instanceof`, never by `name`.
 *
 * @example
 * try { await guarded(input) } catch (e) { if (e instanceof InProgressError) retryLater() }
 */
export class IdempotencyError extends Error {
  /** Stable machine-readable code, also the suffix of the HTTP problem `type`. */
  readonly code: ErrorCode;

  constructor(code: ErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
  }
}

/** The stored record a conflict error refers to. */
export type ConflictingRecord = JournalRecord;

/** The request carried no idempotency key and one is required. */
export class KeyMissingError extends IdempotencyError {
  constructor(message = 'An Idempotency-Key is required for this operation') {
    super('idempotency-key-missing', message);
  }
}

/** The key is empty, longer than 255 characters, or outside visible ASCII. */
export class KeyInvalidError extends IdempotencyError {
  constructor(message: string) {
    super('idempotency-key-invalid', message);
  }
}

/** The key was used before with a different request fingerprint. */
export class PayloadMismatchError extends IdempotencyError {
  constructor(readonly existing?: ConflictingRecord) {
    super('idempotency-key-reused', 'This idempotency key was already used with a different request');
  }
}

/** Another attempt with the same key still holds its lease. */
export class InProgressError extends IdempotencyError {
  constructor(
    readonly retryAfterSeconds: number,
    readonly existing?: ConflictingRecord,
  ) {
    super('request-in-progress', 'A request with this idempotency key is still in progress');
  }
}

/** An effect may have happened and no machine can tell: an operator must resolve the record. */
export class NeedsReviewError extends IdempotencyError {
  constructor(readonly existing?: ConflictingRecord) {
    super('needs-review', 'The outcome of an earlier attempt is unknown and needs review');
  }
}

/** This attempt's lease was taken over; its writes are refused. */
export class LeaseLostError extends IdempotencyError {
  constructor(readonly existing?: ConflictingRecord) {
    super('lease-lost', 'The lease on this idempotency record was taken over by another attempt');
  }
}

/** A `claimUnique` value is already held by another operation; nothing was committed. */
export class UniqueConflictError extends IdempotencyError {
  constructor(
    readonly claimName: string,
    readonly claimValue: string,
    /** The claim item already held (its `claimedBy` names the record that holds it). */
    readonly existing?: Readonly<Record<string, unknown>>,
  ) {
    super('uniqueness-conflict', `The unique value for '${claimName}' is already claimed`);
  }
}

/** A staged write's own condition failed; nothing was committed. */
export class WriteConflictError extends IdempotencyError {
  constructor(
    readonly itemIndex: number,
    options?: { cause?: unknown },
  ) {
    super('write-conflict', `Staged write #${itemIndex} failed its condition`, options);
  }
}

/**
 * A write the handler queued (`stage`, `claimUnique`, `publish`) was refused for a reason of
 * its own (its table missing, a validation error, no permission on its table): nothing
 * committed, and the attempt failed as if the handler had thrown, so the record was
 * released (or marked `UNKNOWN` after `beginEffect`).
 */
export class StagedWriteError extends IdempotencyError {
  constructor(
    /**
     * The refused write: `staged write #<i> (table <name>)`, `uniqueness claim '<name>'`, `outbox event #<i>`, or the
     * staged tables when DynamoDB does not say which.
     */
    readonly item: string,
    /** DynamoDB's reason (`ResourceNotFoundException`, `ValidationError`, ...). */
    readonly reason: string,
    options?: { cause?: unknown },
  ) {
    super('staged-write-failed', `${item[0].toUpperCase()}${item.slice(1)} failed: ${reason}`, options);
  }
}

/** The journal could not be reached (after the SDK's own retries). */
export class JournalUnavailableError extends IdempotencyError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('journal-unavailable', message, options);
  }
}

/** The range a throttle's `Retry-After` is drawn from, in whole seconds (see {@link JournalThrottledError}). */
const THROTTLE_RETRY_AFTER_SECONDS = Object.freeze({ min: 1, max: 3 });

/**
 * A journal call was throttled: DynamoDB refused it over a throughput limit
 * (`ProvisionedThroughputExceededException`, `ThrottlingException`, `RequestLimitExceeded`, or a
 * transaction cancelled for throttled items), most often because one hot key's partition is over
 * its limit. It is not an outage: the caller is asked to come back later (HTTP 429
 * `journal-throttled`), nothing ran before it, and a record already held stays held until its lease
 * ends, never released to a rerun. A subclass of {@link JournalUnavailableError}, so code that retries
 * that error retries this one too; check this class first to tell the two apart.
 *
 * @example
 * try { await guarded(input) } catch (e) { if (e instanceof JournalThrottledError) later(e.retryAfterSeconds) }
 */
export class JournalThrottledError extends JournalUnavailableError {
  override readonly code: ErrorCode = 'journal-throttled';
  /**
   * When to come back, in whole seconds: drawn at random from 1–3 for each throttled journal call, so the processes of
   * a storm do not all come back in the same second. Attempts that shared one call in a process (single-flight) share
   * its draw, and come back to share the next call too.
   */
  readonly retryAfterSeconds: number;

  constructor(
    /**
     * Why DynamoDB throttled, as it says: the `reason` of each of its `ThrottlingReasons`
     * (`TableWriteKeyRangeThroughputExceeded`, `TableReadProvisionedThroughputExceeded`, ...), else the
     * exception's name or the transaction's cancellation codes (`ThrottlingError`).
     */
    readonly reasons: readonly string[],
    message: string,
    options?: { cause?: unknown; retryAfterSeconds?: number },
  ) {
    super(message, options);
    this.retryAfterSeconds = options?.retryAfterSeconds ?? jitteredRetryAfterSeconds();
  }
}

/** A whole number of seconds drawn uniformly from {@link THROTTLE_RETRY_AFTER_SECONDS}. */
function jitteredRetryAfterSeconds(): number {
  const { min, max } = THROTTLE_RETRY_AFTER_SECONDS;
  return min + Math.floor(Math.random() * (max - min + 1));
}

/**
 * A record the guard cannot read: a status it does not know (a typo, a value written by a
 * newer version) or none, an attribute of the wrong type, or a stored response that does not
 * decode. An unknown state may stand for an effect that happened, so the guard fails closed:
 * the handler does not run, the record is left as it is, and the attempt is logged and counted
 * (`JournalError`) for an operator to look at.
 */
export class RecordUnreadableError extends IdempotencyError {
  constructor(
    /** The record's key, when it could be read. */
    readonly pk: string | undefined,
    /** What could not be read, in words: `status 'DONE' is not one the guard knows`. */
    readonly reason: string,
    options?: { cause?: unknown },
  ) {
    super('record-unreadable', `The idempotency record${pk ? ` ${pk}` : ''} cannot be read: ${reason}`, options);
  }
}

/** A completion write failed after the handler ran (logged and counted; never hides the outcome). */
export class JournalError extends IdempotencyError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('journal-error', message, options);
  }
}

/** An operator tried to resolve a record that is absent, completed, or still leased. */
export class NotResolvableError extends IdempotencyError {
  constructor(readonly existing?: ConflictingRecord) {
    super('not-resolvable', 'Only UNKNOWN records or records whose lease expired can be resolved');
  }
}

/** The request cannot be guarded as sent (unknown event shape, ambiguous or too deeply nested body). */
export class RequestInvalidError extends IdempotencyError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('invalid-request', message, options);
  }
}

/** An option or argument passed to the toolkit is invalid (unknown name, wrong type or range). */
export class InvalidOptionsError extends IdempotencyError {
  constructor(message: string) {
    super('invalid-options', message);
  }
}

/** The stored response cannot be written (for example, larger than the Lambda payload limit). */
export class ResponseTooLargeError extends IdempotencyError {
  constructor(readonly sizeBytes: number) {
    super('response-too-large', `Response of ${sizeBytes} bytes exceeds what can be stored`);
  }
}

/**
 * A lease operation (`beginEffect`, `recordEvidence`, `heartbeat`) called in a handler guarded
 * with `effects: 'staged-only'`: no lease is held there, and an external effect is outside
 * what that mode promises. Use `effects: 'any'` for such handlers.
 */
export class StagedOnlyError extends IdempotencyError {
  constructor(readonly operation: string) {
    super(
      'staged-only',
      `${operation}() is not available with effects: 'staged-only' (no lease is held, and external effects are outside its promise); use effects: 'any'`,
    );
  }
}

/**
 * A result or response JSON cannot carry (a BigInt, a cycle, a throwing `toJSON`). The
 * operation ran, so its record completes without a stored result and it never runs again
 * for that key; the first call and every replay get this error.
 */
export class ResponseNotSerializableError extends IdempotencyError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('response-not-serializable', message, options);
  }
}

/**
 * The outbox events of a multi-Region completion do not fit in their record. A multi-Region
 * journal has no transactions, so the events travel inside the completed record, one DynamoDB
 * item of at most 400 KB; the response moves to chunk items when it would crowd them, and the
 * events themselves may use what is left once the record's own attributes are kept
 * (`OUTBOX_IN_RECORD_MAX_BYTES`). Nothing was completed: the attempt fails as if the handler
 * had thrown (the record released, or `UNKNOWN` after `beginEffect()`).
 *
 * @example
 * if (error instanceof OutboxTooLargeError) console.log(`${error.eventBytes} of ${error.roomBytes} bytes`);
 */
export class OutboxTooLargeError extends IdempotencyError {
  constructor(
    /** The size of the events as the record would hold them (attribute name and JSON text), in bytes. */
    readonly eventBytes: number,
    /** What the record leaves them, in bytes. */
    readonly roomBytes: number,
    options?: { cause?: unknown },
  ) {
    super(
      'outbox-too-large',
      `A multi-Region completion carries its outbox events inside its record, one DynamoDB item of at most 400 KB: ` +
        `${eventBytes} bytes of events do not fit in the ${roomBytes} bytes the record leaves them`,
      options,
    );
  }
}

/** What a multi-Region (MRSC) journal offers instead of each feature it refuses. */
const MULTI_REGION_INSTEAD = {
  'stage()': 'the leased protocol: call beginEffect() and write the item yourself, or publish() an event',
  'claimUnique()': 'holdUnique(name, value), a single-item claim taken before any effect',
  "effects: 'staged-only'": "effects: 'any' (the leased protocol, one conditional write per step)",
} as const;

/**
 * A feature that needs `TransactWriteItems` (`stage()`, `claimUnique()`, `effects: 'staged-only'`)
 * used with `DynamoDBJournal({ multiRegion: 'strong' })`: a DynamoDB global table with
 * multi-Region strong consistency (MRSC) refuses transactions, so the journal refuses the
 * feature where it is called or configured, before anything is written, and says what to use
 * instead.
 *
 * @example
 * try { scope.claimUnique('email', email) } catch (e) { if (e instanceof MultiRegionUnsupportedError) ... }
 */
export class MultiRegionUnsupportedError extends IdempotencyError {
  constructor(
    /** The refused feature: `stage()`, `claimUnique()` or `effects: 'staged-only'`. */
    readonly feature: keyof typeof MULTI_REGION_INSTEAD,
  ) {
    super(
      'multi-region-unsupported',
      `${feature} is not available with DynamoDBJournal({ multiRegion: 'strong' }): it commits in a TransactWriteItems, ` +
        `and DynamoDB global tables with multi-Region strong consistency have no transactions; use ${MULTI_REGION_INSTEAD[feature]}`,
    );
  }
}

/** What a journal without transactions (`transactions: false`, a Valkey journal) offers instead of each feature. */
const WITHOUT_TRANSACTIONS_INSTEAD = {
  'stage()': 'the leased protocol: call beginEffect() and write the item yourself',
  'claimUnique()': 'holdUnique(name, value), a claim taken before any effect',
  'publish()': 'send the event yourself after beginEffect(), or keep the outbox on a DynamoDBJournal',
  "effects: 'staged-only'": "effects: 'any' (the leased protocol, one atomic script per step)",
} as const;

/**
 * A feature that needs DynamoDB (`stage()`, `claimUnique()` and `effects: 'staged-only'` commit
 * in a `TransactWriteItems`; `publish()` writes outbox items a DynamoDB stream dispatches) used
 * with a journal whose store has neither (`journal.transactions === false`: a `ValkeyJournal`).
 * Refused where it is called or configured, before anything is written, never degraded to
 * separate writes; the message says what to use instead.
 *
 * @example
 * try { scope.stage(item) } catch (e) { if (e instanceof JournalFeatureUnsupportedError) console.log(e.feature) }
 */
export class JournalFeatureUnsupportedError extends IdempotencyError {
  constructor(
    /** The refused feature. */
    readonly feature: keyof typeof WITHOUT_TRANSACTIONS_INSTEAD,
  ) {
    super(
      'journal-feature-unsupported',
      `${feature} is not available with this journal: it needs DynamoDB's TransactWriteItems or its outbox, ` +
        `which the journal's store has not; use ${WITHOUT_TRANSACTIONS_INSTEAD[feature]}`,
    );
  }
}

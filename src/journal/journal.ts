import type { Evidence, JournalRecord } from '../core/index.js';

export type { Evidence, JournalRecord } from '../core/index.js';

/**
 * One DocumentClient `TransactWriteItems` entry staged by a handler, committed together
 * with the completion of its record.
 */
export type TransactItem = {
  Put?: {
    TableName: string;
    Item: Record<string, unknown>;
    ConditionExpression?: string;
    ExpressionAttributeNames?: Record<string, string>;
    ExpressionAttributeValues?: Record<string, unknown>;
  };
  Update?: {
    TableName: string;
    Key: Record<string, unknown>;
    UpdateExpression: string;
    ConditionExpression?: string;
    ExpressionAttributeNames?: Record<string, string>;
    ExpressionAttributeValues?: Record<string, unknown>;
  };
  Delete?: {
    TableName: string;
    Key: Record<string, unknown>;
    ConditionExpression?: string;
    ExpressionAttributeNames?: Record<string, string>;
    ExpressionAttributeValues?: Record<string, unknown>;
  };
  ConditionCheck?: {
    TableName: string;
    Key: Record<string, unknown>;
    ConditionExpression: string;
    ExpressionAttributeNames?: Record<string, string>;
    ExpressionAttributeValues?: Record<string, unknown>;
  };
};

/** An event queued by `publish()`, written as an `outbox#<eventId>` item at completion. */
export interface OutboxEvent {
  readonly eventId: string;
  readonly type: string;
  readonly detail: unknown;
  readonly occurredAt: string;
}

/** A long-lived business uniqueness claim, written as a `uniq#<name>#<value>` item. */
export interface UniqueClaim {
  readonly name: string;
  readonly value: string;
}

/** What a handler queued for its completion transaction. */
export interface CompletionWrites {
  readonly staged: readonly TransactItem[];
  readonly uniqueClaims: readonly UniqueClaim[];
  readonly outbox: readonly OutboxEvent[];
  /** Claims this attempt already holds (`holdUnique`): the completion makes them permanent, fenced on the lease token. */
  readonly heldClaims?: readonly UniqueClaim[];
  /**
   * True when every held claim is already pinned ({@link Journal.pinUnique}: the attempt began its effect): a
   * completion that pins them before its own write (a multi-Region one) need not pin them again.
   * @default false
   */
  readonly heldClaimsPinned?: boolean;
}

/** A uniqueness claim held by one attempt until its completion (see {@link Journal.holdUnique}). */
export interface UniqueHold {
  readonly claim: UniqueClaim;
  /** The record whose attempt holds the claim (`claimedBy`). */
  readonly ownerPk: string;
  /**
   * That record's `createdAt` (`ownerCreatedAt`): with `ownerPk`, the logical operation the claim is held for. A later
   * attempt of the same operation takes the claim back; the same key reused after its outcome expired does not.
   */
  readonly ownerCreatedAtEpochMs: number;
  /** The holding attempt's lease token: the claim's `holdToken` until the completion makes it permanent. */
  readonly leaseToken: string;
  /**
   * True when the holding attempt's effect may already have begun (it took the claim after `beginEffect()`, or recovers
   * a record whose effect began): the claim is pinned as it is taken ({@link Journal.pinUnique}).
   * @default false
   */
  readonly pinned?: boolean;
}

/** Input of {@link Journal.reserve}. */
export interface ReserveRequest {
  readonly pk: string;
  readonly fingerprint: string;
  readonly leaseMs: number;
  readonly ttlSeconds: number;
  /** The Lambda durable execution reserving the key, recorded as the record's owner. */
  readonly durableExecutionArn?: string;
}

/** Input of {@link Journal.takeOver}. */
export interface TakeOverRequest {
  readonly pk: string;
  /** The lease token read with the record: the takeover lands only if it still holds it. */
  readonly expectedToken: string;
  readonly leaseMs: number;
  /** The durable execution taking over, recorded as the owner (none when undefined: the previous owner is removed). */
  readonly durableExecutionArn?: string;
}

/** Input of {@link Journal.complete}. */
export interface Completion {
  readonly pk: string;
  /** The lease token of the completing attempt (the write is fenced on it). */
  readonly leaseToken: string;
  /** The stored form of the outcome. */
  readonly response: unknown;
  readonly ttlSeconds: number;
  /** What the handler queued to commit with the outcome. */
  readonly writes?: CompletionWrites;
}

/** Result of {@link Journal.reserve}: either this attempt owns a fresh record, or the existing one came back. */
export type ReserveResult =
  | { readonly reserved: true; readonly record: JournalRecord; readonly replacedExpired: boolean }
  | { readonly reserved: false; readonly record: JournalRecord };

/**
 * Input of `Journal.commitStaged`: everything a handler run under `effects: 'staged-only'`
 * produced, committed with its `COMPLETED` record in one transaction.
 */
export interface StagedCommit {
  readonly pk: string;
  readonly fingerprint: string;
  /**
   * Fresh for every attempt: stored as the record's `leaseToken`, it names the attempt's chunk
   * items and makes an SDK resend of its transaction a no-op instead of a conflict.
   */
  readonly commitToken: string;
  /** When the attempt began; stable ids (`deriveKey`, outbox event ids) were derived from it. */
  readonly createdAtEpochMs: number;
  /** The stored form of the outcome. */
  readonly response: unknown;
  readonly ttlSeconds: number;
  readonly writes: CompletionWrites;
}

/**
 * What became of a staged commit:
 * - `committed`: the writes and the record landed together;
 * - `refused`: the record's condition failed, nothing of this attempt landed, and the record
 *   found decides (a completed record with this fingerprint comes with its response);
 * - `raced`: a concurrent transaction on one of the items cancelled it (`TransactionConflict`);
 *   nothing landed, and the record may be changing under it.
 */
export type StagedCommitResult =
  | { readonly kind: 'committed' }
  | { readonly kind: 'refused'; readonly record: JournalRecord }
  | { readonly kind: 'raced' };

/** How an operator resolves a record no machine could decide. */
export type Resolution =
  | { readonly outcome: 'completed'; readonly response: unknown; readonly ttlSeconds: number }
  | { readonly outcome: 'released' };

/**
 * Storage primitives of the idempotency journal. Every write after `reserve` is fenced on
 * the caller's lease token: a caller whose lease was taken over gets `LeaseLostError`
 * carrying the stored record.
 */
export interface Journal {
  /**
   * `'strong'` for a journal on a DynamoDB global table with multi-Region strong consistency
   * (MRSC): it has no transactions, so `stage()`, `claimUnique()` and `effects: 'staged-only'`
   * are refused where they are called or configured.
   * @default undefined (a single-Region journal, transactions available)
   */
  readonly multiRegion?: 'strong';
  /**
   * `false` for a journal whose store has neither transactions nor an outbox (a `ValkeyJournal`):
   * `stage()`, `claimUnique()`, `publish()` and `effects: 'staged-only'` are refused with
   * `JournalFeatureUnsupportedError` where they are called or configured, and its `commitStaged`
   * and a completion carrying such writes throw it.
   * @default undefined (transactions available)
   */
  readonly transactions?: false;
  /** One conditional write: claims an absent or expired key, or returns the existing record. */
  reserve(request: ReserveRequest): Promise<ReserveResult>;
  /**
   * Takes over an expired lease (or an `UNKNOWN` record) held under `expectedToken`; the record's
   * durable execution becomes `durableExecutionArn` (none when undefined), so only the new owner's replays continue.
   */
  takeOver(request: TakeOverRequest): Promise<JournalRecord>;
  /** Extends the lease; returns the new `leaseUntil` (epoch ms). */
  heartbeat(pk: string, leaseToken: string, leaseMs: number): Promise<number>;
  /** Durably marks that an irreversible effect is about to start; the record stops expiring. */
  beginEffect(pk: string, leaseToken: string, effectName: string): Promise<void>;
  /** Merges downstream references into the record's evidence. */
  recordEvidence(pk: string, leaseToken: string, evidence: Evidence): Promise<void>;
  /** Stores the outcome and commits the queued writes in one transaction. */
  complete(completion: Completion): Promise<void>;
  /** Marks the record `UNKNOWN` (no expiry) while holding `leaseToken`. */
  markUnknown(pk: string, leaseToken: string): Promise<void>;
  /** Marks an abandoned record `UNKNOWN`: only if `leaseToken` still holds it and its lease expired. */
  markAbandonedUnknown(pk: string, leaseToken: string): Promise<JournalRecord>;
  /** Deletes the record so a retry runs again. */
  release(pk: string, leaseToken: string): Promise<void>;
  /**
   * Takes a uniqueness claim now, owned by the attempt's lease token: absent, or held by an
   * earlier attempt of the same operation, it is taken at once (pinned still, if it was); held,
   * not pinned, by another operation's attempt whose lease ended before any effect, that record
   * is fenced (its token changed) and the claim taken over. Pinned before the effect or the
   * completion ({@link pinUnique}), released with the attempt ({@link letGoUnique}), made
   * permanent by its completion (`CompletionWrites.heldClaims`).
   *
   * @throws UniqueConflictError when the value is claimed for good, pinned by another operation, or held by a live or
   *   effectful attempt of another operation; JournalUnavailableError
   */
  holdUnique(hold: UniqueHold): Promise<void>;
  /**
   * Pins a claim the attempt holds, before its effect begins or its completion is written: from
   * then on no other operation takes it, whatever becomes of the holder's record (completed and
   * deleted after its expiry, released by an operator, its key reused), until the completion makes
   * it permanent or the holder, ending with no effect, lets it go.
   *
   * @throws UniqueConflictError when the attempt no longer holds the claim (another operation took it over while the
   *   attempt stalled); JournalUnavailableError
   */
  pinUnique(hold: UniqueHold): Promise<void>;
  /** Deletes a claim the attempt still holds (its completion never came); nothing when it is gone or taken over. */
  letGoUnique(hold: UniqueHold): Promise<void>;
  /** Strongly consistent read of one record, with its full response. */
  get(pk: string): Promise<JournalRecord | undefined>;
  /** Operator action on an `UNKNOWN` record or an expired lease. */
  resolve(pk: string, resolution: Resolution): Promise<void>;
  /**
   * One transaction: the handler's writes with a `COMPLETED` record, on condition that the
   * record is absent, past its `expiresAt`, or left by a leased attempt that vanished before any
   * effect (`effects: 'staged-only'`); otherwise the record found comes back.
   *
   * @throws ResponseTooLargeError before anything is sent when the response does not fit in the
   *   transaction; UniqueConflictError, WriteConflictError when a claim or a staged write's own
   *   condition failed (nothing committed); JournalUnavailableError
   */
  commitStaged(commit: StagedCommit): Promise<StagedCommitResult>;
  /**
   * Has a tracer (a Powertools `Tracer`) capture the journal's AWS SDK client, once, so its
   * calls appear as subsegments. Journals without an SDK client leave it out.
   */
  traceWith?(tracer: { captureAWSv3Client<T>(client: T): T }): void;
}

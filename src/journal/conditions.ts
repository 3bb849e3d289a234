import { ClaimAttribute, RecordAttribute, RecordKind, RecordStatus } from './schema.js';

/**
 * Every condition expression the DynamoDB journal puts on its writes, by name.
 *
 * The protocol's safety rests on these guards, and the Promela model of the protocol
 * (`model/journal.pml`, checked by `npm run verify:model`) carries one guard per name;
 * `model/guards.json` ties each name to its expression and its model guard, and a test fails
 * when an expression here changes without both being updated. Placeholders: `#pk`, `#status`
 * name attributes; `:nowMs` is epoch ms, `:nowSeconds` epoch seconds; `:mine`, `:old` and `:token`
 * are lease tokens, `:owner` a record's key.
 *
 * {@link JournalGuard} states each condition again as a TypeScript predicate, by the same name:
 * `MemoryJournal` applies them, the multi-Region journal decides a write spent on conflicts with
 * them, and a test evaluates every predicate against its model guard over every state the model has.
 *
 * @example
 * await calls.delete('release', { pk }, { ConditionExpression: JournalCondition.leaseHeldNotCompleted, ... });
 */
export const JournalCondition = Object.freeze({
  /**
   * The key is free to claim: absent, or past `expiresAt` and completed or in progress under an
   * ended lease. A status the guard does not know is never claimed: it
   * may stand for an effect that happened. Reservation.
   */
  claimable:
    'attribute_not_exists(#pk) OR (expiresAt <= :nowSeconds AND (#status = :completed OR (#status = :inProgress AND leaseUntil < :nowMs)))',
  /**
   * The staged-only commit over a record found: claimable, or in progress under an ended lease
   * whose holder began no effect, for the same request (that holder's later writes are fenced out
   * by the new token). A record not past its expiry answers another request with 422 whatever its
   * state, so only the same fingerprint may take an abandoned lease over.
   */
  stagedCommitClaimable:
    'attribute_not_exists(#pk) OR (expiresAt <= :nowSeconds AND (#status = :completed OR (#status = :inProgress AND leaseUntil < :nowMs))) OR (#status = :inProgress AND leaseUntil < :nowMs AND effectStarted = :false AND fingerprint = :fingerprint)',
  /**
   * Takeover: the token read still holds the record, and it is in progress under an ended lease, or `UNKNOWN`; never a
   * record in a state the guard does not know.
   */
  takeOver: 'leaseToken = :old AND ((#status = :inProgress AND leaseUntil < :nowMs) OR #status = :unknown)',
  /** Marking an abandoned record `UNKNOWN`: the token read still holds it, in progress, with its lease ended. */
  abandonedLease: 'leaseToken = :old AND #status = :inProgress AND leaseUntil < :nowMs',
  /** Heartbeat, beginEffect, recordEvidence, markUnknown: the caller still holds the lease. */
  leaseHeld: 'leaseToken = :mine',
  /** Completion and release: the caller still holds the lease and the record is not completed. */
  leaseHeldNotCompleted: 'leaseToken = :mine AND #status <> :completed',
  /** An operator's resolution: `UNKNOWN`, or in progress with its lease ended. */
  resolvable: '#status = :unknown OR (#status = :inProgress AND leaseUntil < :nowMs)',
  /**
   * The sweeper of a multi-Region journal (MRSC tables have no TTL): the item is still past its
   * `expiresAt` and is completed or in progress under an ended lease (what `claimable` would claim
   * over), or is a response chunk. Like `claimable`, it names the states it deletes: a status the
   * guard does not know, or none, is never deleted, since it may stand for an effect that happened.
   */
  sweepable:
    'expiresAt <= :nowSeconds AND (#status = :completed OR (#status = :inProgress AND leaseUntil < :nowMs) OR kind = :chunk)',
  /** Uniqueness claims and outbox items written by the completion transaction: not there yet. */
  itemAbsent: 'attribute_not_exists(#pk)',
  /**
   * `holdUnique`: the claim is free, or held (not yet permanent) by an earlier attempt of the same operation (the same
   * record, created at the same time), which the caller's lease has fenced out of that record. A pinned hold stays
   * pinned: that operation's effect may have begun.
   */
  uniqueHoldable:
    'attribute_not_exists(#pk) OR (claimedBy = :owner AND ownerCreatedAt = :ownerCreatedAt AND attribute_exists(holdToken))',
  /**
   * A held claim is still held by the token: pinned before its holder's effect or completion, made permanent by the
   * completion, deleted by a release.
   */
  uniqueHeldBy: 'holdToken = :token',
  /**
   * A stale hold taken over by another operation: still held by the token read, and not pinned (its holder never began
   * an effect or a completion, and now never will: pinning it is fenced on the same token).
   */
  uniqueTakeable: 'holdToken = :token AND attribute_not_exists(pinned)',
  /**
   * Fencing the record of a stale hold before its claim is taken over: the token read still holds it, in progress
   * under an ended lease, with no effect begun (its holder's later writes then all fail).
   */
  holdAbandoned: 'leaseToken = :old AND #status = :inProgress AND leaseUntil < :nowMs AND effectStarted = :false',
} as const);

/** The name of one of the journal's condition expressions. */
export type JournalConditionName = keyof typeof JournalCondition;

/**
 * The names and values `claimable` reads at `nowEpochMs`; `stagedCommitClaimable` reads the
 * same, `:false` and `:fingerprint`.
 */
export function claimParameters(nowEpochMs: number) {
  return {
    ExpressionAttributeNames: { '#pk': 'pk', '#status': 'status' },
    ExpressionAttributeValues: {
      ':nowSeconds': Math.floor(nowEpochMs / 1000),
      ':nowMs': nowEpochMs,
      ':inProgress': RecordStatus.inProgress,
      ':completed': RecordStatus.completed,
    } as Record<string, unknown>,
  };
}

/**
 * What a condition reads of an item, in the journal's units: a record's attributes, or a
 * uniqueness claim's. A `JournalRecord` is one; {@link guardedItemOf} reads a DynamoDB item.
 */
export interface GuardedItem {
  readonly status?: string;
  readonly leaseToken?: string;
  readonly leaseUntilEpochMs?: number;
  readonly expiresAtEpochSeconds?: number;
  readonly effectStarted?: boolean;
  readonly claimedBy?: string;
  readonly holdToken?: string;
  /** The request fingerprint of a record. */
  readonly fingerprint?: string;
  /** A claim's `ownerCreatedAt`. */
  readonly ownerCreatedAtEpochMs?: number;
  /** True when a claim has the `pinned` attribute (whatever its value: the conditions ask whether it exists). */
  readonly pinned?: boolean;
  /** The item's `kind` (`chunk` for a slice of a large response). */
  readonly kind?: string;
}

/** The values a condition compares an item with: the clock, and the token or owner it names. */
export interface GuardValues {
  /** `:nowMs` (and `:nowSeconds`, its whole seconds). */
  readonly nowEpochMs: number;
  /** The lease token the condition names: `:mine`, `:old` or `:token`. */
  readonly token?: string;
  /** The record a claim is held for: `:owner`. */
  readonly owner?: string;
  /** The fingerprint of the request writing: `:fingerprint`. */
  readonly fingerprint?: string;
  /** That record's `createdAt`: `:ownerCreatedAt`. */
  readonly ownerCreatedAtEpochMs?: number;
}

/** One condition as a predicate: `item` is undefined when the key holds no item. */
export type Guard = (item: GuardedItem | undefined, values: GuardValues) => boolean;

// DynamoDB compares a missing attribute as false: a record without `expiresAt` is never past it.
const pastExpiry = (item: GuardedItem, { nowEpochMs }: GuardValues) =>
  item.expiresAtEpochSeconds !== undefined && item.expiresAtEpochSeconds <= Math.floor(nowEpochMs / 1000);
const leaseEnded = (item: GuardedItem, { nowEpochMs }: GuardValues) =>
  item.leaseUntilEpochMs !== undefined && item.leaseUntilEpochMs < nowEpochMs;
const inProgress = (item: GuardedItem) => item.status === RecordStatus.inProgress;
const tokenIs = (item: GuardedItem, { token }: GuardValues) => token !== undefined && item.leaseToken === token;
const claimable: Guard = (item, values) =>
  !item ||
  (pastExpiry(item, values) &&
    (item.status === RecordStatus.completed || (inProgress(item) && leaseEnded(item, values))));

/**
 * Every condition of {@link JournalCondition} as a predicate, by the same name, saying what
 * DynamoDB would answer for the expression on `item` with `values`.
 *
 * @example
 * if (!JournalGuard.claimable(record, { nowEpochMs: Date.now() })) return { reserved: false, record };
 */
export const JournalGuard: { readonly [N in JournalConditionName]: Guard } = Object.freeze({
  claimable,
  stagedCommitClaimable: (item, values) =>
    claimable(item, values) ||
    (item !== undefined &&
      inProgress(item) &&
      leaseEnded(item, values) &&
      item.effectStarted === false &&
      values.fingerprint !== undefined &&
      item.fingerprint === values.fingerprint),
  takeOver: (item, values) =>
    item !== undefined &&
    tokenIs(item, values) &&
    ((inProgress(item) && leaseEnded(item, values)) || item.status === RecordStatus.unknown),
  abandonedLease: (item, values) =>
    item !== undefined && tokenIs(item, values) && inProgress(item) && leaseEnded(item, values),
  leaseHeld: (item, values) => item !== undefined && tokenIs(item, values),
  leaseHeldNotCompleted: (item, values) =>
    item !== undefined && tokenIs(item, values) && item.status !== RecordStatus.completed,
  resolvable: (item, values) =>
    item !== undefined && (item.status === RecordStatus.unknown || (inProgress(item) && leaseEnded(item, values))),
  sweepable: (item, values) =>
    item !== undefined &&
    pastExpiry(item, values) &&
    (item.status === RecordStatus.completed ||
      (inProgress(item) && leaseEnded(item, values)) ||
      item.kind === RecordKind.chunk),
  itemAbsent: (item) => item === undefined,
  uniqueHoldable: (item, { owner, ownerCreatedAtEpochMs }) =>
    item === undefined ||
    (owner !== undefined &&
      item.claimedBy === owner &&
      ownerCreatedAtEpochMs !== undefined &&
      item.ownerCreatedAtEpochMs === ownerCreatedAtEpochMs &&
      item.holdToken !== undefined),
  uniqueHeldBy: (item, { token }) => item !== undefined && token !== undefined && item.holdToken === token,
  uniqueTakeable: (item, { token }) =>
    item !== undefined && token !== undefined && item.holdToken === token && !item.pinned,
  holdAbandoned: (item, values) =>
    item !== undefined &&
    tokenIs(item, values) &&
    inProgress(item) &&
    leaseEnded(item, values) &&
    item.effectStarted === false,
});

/** The name of the condition `expression` is, if it is one of the journal's. */
export function conditionNamed(expression: string): JournalConditionName | undefined {
  return (Object.keys(JournalCondition) as JournalConditionName[]).find(
    (name) => JournalCondition[name] === expression,
  );
}

/** What the guards read of a DynamoDB item (plain values, as a DocumentClient returns them). */
export function guardedItemOf(item: Readonly<Record<string, unknown>> | undefined): GuardedItem | undefined {
  if (!item) return undefined;
  const text = (value: unknown) => (typeof value === 'string' ? value : undefined);
  const number = (value: unknown) => (value === undefined || value === null ? undefined : Number(value));
  return {
    status: text(item[RecordAttribute.status]),
    leaseToken: text(item[RecordAttribute.leaseToken]),
    leaseUntilEpochMs: number(item[RecordAttribute.leaseUntil]),
    expiresAtEpochSeconds: number(item[RecordAttribute.expiresAt]),
    effectStarted:
      typeof item[RecordAttribute.effectStarted] === 'boolean'
        ? (item[RecordAttribute.effectStarted] as boolean)
        : undefined,
    claimedBy: text(item[ClaimAttribute.claimedBy]),
    holdToken: text(item[ClaimAttribute.holdToken]),
    fingerprint: text(item[RecordAttribute.fingerprint]),
    ownerCreatedAtEpochMs: number(item[ClaimAttribute.ownerCreatedAt]),
    pinned: item[ClaimAttribute.pinned] !== undefined,
    kind: text(item[RecordAttribute.kind]),
  };
}

/** The guard values of a DynamoDB request's expression attribute values. */
export function guardValuesOf(values: Readonly<Record<string, unknown>>): GuardValues {
  const token = values[':mine'] ?? values[':old'] ?? values[':token'];
  return {
    nowEpochMs: Number(values[':nowMs'] ?? Number(values[':nowSeconds'] ?? 0) * 1000),
    token: typeof token === 'string' ? token : undefined,
    owner: typeof values[':owner'] === 'string' ? values[':owner'] : undefined,
    fingerprint: typeof values[':fingerprint'] === 'string' ? values[':fingerprint'] : undefined,
    ownerCreatedAtEpochMs: typeof values[':ownerCreatedAt'] === 'number' ? values[':ownerCreatedAt'] : undefined,
  };
}

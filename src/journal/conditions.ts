import { RecordStatus } from './schema.js';

/**
 * Every condition expression the DynamoDB journal puts on its writes, by name.
 *
 * The protocol's safety rests on these guards, and the Promela model of the protocol
 * (`model/journal.pml`, checked by `npm run verify:model`) carries one guard per name;
 * `model/guards.json` ties each name to its expression and its model guard, and a test fails
 * when an expression here changes without both being updated. Placeholders: `#pk`, `#status`
 * name attributes; `:now`/`:nowMs` are epoch ms, `:nowSeconds` epoch seconds; `:mine` and
 * `:old` are lease tokens.
 *
 * @example
 * await calls.delete('release', { pk }, { ConditionExpression: JournalCondition.leaseHeldNotCompleted, ... });
 */
export const JournalCondition = Object.freeze({
  /**
   * The key is free to claim: absent, or past `expiresAt` and completed or in progress under an
   * ended lease (mirrors `isClaimable`). A status the guard does not know is never claimed: it
   * may stand for an effect that happened. Reservation.
   */
  claimable:
    'attribute_not_exists(#pk) OR (expiresAt <= :nowSeconds AND (#status = :completed OR (#status = :inProgress AND leaseUntil < :nowMs)))',
  /**
   * The staged-only commit over a record found: claimable, or in progress under an ended lease
   * whose holder began no effect (that holder's later writes are fenced out by the new token).
   */
  stagedCommitClaimable:
    'attribute_not_exists(#pk) OR (expiresAt <= :nowSeconds AND (#status = :completed OR (#status = :inProgress AND leaseUntil < :nowMs))) OR (#status = :inProgress AND leaseUntil < :nowMs AND effectStarted = :false)',
  /**
   * Takeover: the token read still holds the record, and it is in progress under an ended lease, or `UNKNOWN`; never a
   * record in a state the guard does not know.
   */
  takeOver: 'leaseToken = :old AND ((#status = :inProgress AND leaseUntil < :now) OR #status = :unknown)',
  /** Marking an abandoned record `UNKNOWN`: the token read still holds it, in progress, with its lease ended. */
  abandonedLease: 'leaseToken = :old AND #status = :inProgress AND leaseUntil < :now',
  /** Heartbeat, beginEffect, recordEvidence, markUnknown: the caller still holds the lease. */
  leaseHeld: 'leaseToken = :mine',
  /** Completion and release: the caller still holds the lease and the record is not completed. */
  leaseHeldNotCompleted: 'leaseToken = :mine AND #status <> :completed',
  /** An operator's resolution: `UNKNOWN`, or in progress with its lease ended. */
  resolvable: '#status = :unknown OR (#status = :inProgress AND leaseUntil < :now)',
  /**
   * The sweeper of a multi-Region journal (MRSC tables have no TTL): the item is still past its
   * `expiresAt`, not `UNKNOWN`, and under no live lease (what `claimable` would claim over).
   */
  sweepable:
    'expiresAt <= :nowSeconds AND NOT (#status = :unknown) AND NOT (#status = :inProgress AND leaseUntil >= :nowMs)',
  /** Uniqueness claims and outbox items written by the completion transaction: not there yet. */
  itemAbsent: 'attribute_not_exists(#pk)',
  /**
   * `holdUnique`: the claim is free, or held (not yet permanent) by an earlier attempt of the same record, which the
   * caller's lease has fenced out of that record.
   */
  uniqueHoldable: 'attribute_not_exists(#pk) OR (claimedBy = :owner AND attribute_exists(holdToken))',
  /**
   * A held claim is still held by the token: its completion makes it permanent, a release deletes it, a takeover of a
   * stale hold replaces it.
   */
  uniqueHeldBy: 'holdToken = :token',
  /**
   * Fencing the record of a stale hold before its claim is taken over: the token read still holds it, in progress
   * under an ended lease, with no effect begun (its holder's later writes then all fail).
   */
  holdAbandoned: 'leaseToken = :old AND #status = :inProgress AND leaseUntil < :now AND effectStarted = :false',
} as const);

/** The name of one of the journal's condition expressions. */
export type JournalConditionName = keyof typeof JournalCondition;

/**
 * The names and values `claimable` reads at `nowEpochMs`; `stagedCommitClaimable` reads the
 * same and `:false`.
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

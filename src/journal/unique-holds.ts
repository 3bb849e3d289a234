import { UniqueConflictError } from '../core/index.js';
import { uniqueItem } from './completion-writes.js';
import { JournalCondition } from './conditions.js';
import { isConditionFailure, oldItemOf, toJournalError, type ItemCalls } from './item-calls.js';
import type { UniqueClaim, UniqueHold } from './journal.js';
import { newLeaseToken } from './record-lifetime.js';
import { ClaimAttribute, RecordAttribute, RecordStatus, uniquePk, type JournalItem } from './schema.js';

/**
 * Uniqueness claims taken before the effect they guard (`holdUnique`): one conditional write owned
 * by the attempt's lease token (`holdToken`), so a refund that would break a rule is refused before
 * any money moves, not after. A hold lives as long as its attempt's operation:
 *
 * - taken when free, or back from an earlier attempt of the same operation (the same record,
 *   created at the same time: `claimedBy` and `ownerCreatedAt`);
 * - **pinned** (`pinned`, fenced on `holdToken`) before its holder begins an effect or writes a
 *   completion: from then on no other operation takes it, whatever becomes of the holder's record
 *   (completed and swept, expired and reused, released by an operator). The pin lives on the
 *   claim's own item, so no later write that could be lost, and no record that could be deleted,
 *   decides it;
 * - made permanent by the completion (`REMOVE holdToken, pinned`), let go (deleted) by a holder
 *   that ends with no effect and no outcome;
 * - taken over by another operation only when it is not pinned (its holder never began an effect
 *   or a completion, and can no longer: pinning is fenced on the token the takeover replaces), and
 *   only once that holder is out of the way: its record gone, held under another token, or — in
 *   progress under an ended lease with no effect begun — fenced now with a fresh token.
 *
 * Every write here is one single-item write.
 */

/** The claim item of a hold, as `holdUnique` writes it: a permanent claim's attributes plus the holding token. */
export function heldClaimItem(hold: UniqueHold, nowEpochMs: number): JournalItem {
  return {
    ...uniqueItem(hold.claim, hold.ownerPk, nowEpochMs),
    [ClaimAttribute.ownerCreatedAt]: hold.ownerCreatedAtEpochMs,
    [ClaimAttribute.holdToken]: hold.leaseToken,
    ...(hold.pinned ? { [ClaimAttribute.pinned]: true } : {}),
  };
}

/**
 * The `UpdateItem` parts writing {@link heldClaimItem} over whatever the claim holds: an attribute
 * it does not set (`pinned` on a hold taken back by its own operation) stays as it was. The
 * values use placeholders of their own, so the condition's `:token` and `:owner` keep their meaning.
 */
function heldClaimWrite(hold: UniqueHold, nowEpochMs: number) {
  const { pk, ...attributes } = heldClaimItem(hold, nowEpochMs);
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  const sets = Object.entries(attributes).map(([name, value], i) => {
    names[`#h${i}`] = name;
    values[`:h${i}`] = value;
    return `#h${i} = :h${i}`;
  });
  return { key: { pk }, UpdateExpression: `SET ${sets.join(', ')}`, names, values };
}

/** Takes `hold.claim` for the attempt, or throws `UniqueConflictError` naming who holds it. */
export async function holdUniqueOnDynamoDB(calls: ItemCalls, hold: UniqueHold, nowEpochMs: number): Promise<void> {
  const write = heldClaimWrite(hold, nowEpochMs);
  let held: JournalItem | undefined;
  try {
    await calls.update('holdUnique', write.key, {
      UpdateExpression: write.UpdateExpression,
      ConditionExpression: JournalCondition.uniqueHoldable,
      ExpressionAttributeNames: { ...write.names, '#pk': 'pk' },
      ExpressionAttributeValues: {
        ...write.values,
        ':owner': hold.ownerPk,
        ':ownerCreatedAt': hold.ownerCreatedAtEpochMs,
      },
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    });
    return;
  } catch (error) {
    if (!isConditionFailure(error)) throw toJournalError(error, 'holdUnique');
    held = oldItemOf(error);
  }
  const conflict = (item: JournalItem | undefined) => new UniqueConflictError(hold.claim.name, hold.claim.value, item);
  // The SDK resent a takeover that had landed: the hold is ours.
  if (held?.[ClaimAttribute.holdToken] === hold.leaseToken) return;
  const staleToken = held?.[ClaimAttribute.holdToken];
  const holder = held?.[ClaimAttribute.claimedBy];
  if (typeof staleToken !== 'string' || typeof holder !== 'string') throw conflict(held);
  // A pinned hold guards an effect or an outcome that may have happened: no other operation takes it.
  if (held?.[ClaimAttribute.pinned] !== undefined) throw conflict(held);
  if (!(await holderGone(calls, holder, staleToken, nowEpochMs))) throw conflict(held);
  try {
    await calls.update('holdUnique', write.key, {
      UpdateExpression: write.UpdateExpression,
      ConditionExpression: JournalCondition.uniqueTakeable,
      ExpressionAttributeNames: write.names,
      ExpressionAttributeValues: { ...write.values, ':token': staleToken },
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    });
  } catch (error) {
    if (!isConditionFailure(error)) throw toJournalError(error, 'holdUnique');
    const now = oldItemOf(error);
    if (now?.[ClaimAttribute.holdToken] === hold.leaseToken) return;
    // Someone else changed the claim since it was read (pinned, made permanent, taken over): it is theirs.
    throw conflict(now);
  }
}

/**
 * Whether the attempt holding a claim under `staleToken` is out of the way: its record is gone,
 * or began no effect and is held under another token, or — in progress under an ended lease with
 * no effect begun — is fenced now by a fresh token. A live holder, and a record whose effect began
 * or is `UNKNOWN`, keep the claim. (What stops a holder that went on regardless is the claim
 * itself: its pin and its completion are fenced on `staleToken`, which the takeover replaces.)
 */
async function holderGone(calls: ItemCalls, ownerPk: string, staleToken: string, nowEpochMs: number) {
  let owner: JournalItem | undefined;
  try {
    owner = await calls.get('get', { pk: ownerPk });
  } catch (error) {
    throw toJournalError(error, 'get');
  }
  if (!owner) return true;
  // An effect that began under the record (by the holder, before any takeover) is what the claim protects.
  if (owner[RecordAttribute.effectStarted] === true || owner[RecordAttribute.status] === RecordStatus.unknown)
    return false;
  if (owner[RecordAttribute.leaseToken] !== staleToken) return true;
  try {
    await calls.update(
      'fenceHolder',
      { pk: ownerPk },
      {
        UpdateExpression: `SET ${RecordAttribute.leaseToken} = :fence, ${RecordAttribute.updatedAt} = :nowMs`,
        ConditionExpression: JournalCondition.holdAbandoned,
        ExpressionAttributeNames: { '#status': RecordAttribute.status },
        ExpressionAttributeValues: {
          ':fence': newLeaseToken(),
          ':old': staleToken,
          ':inProgress': RecordStatus.inProgress,
          ':nowMs': nowEpochMs,
          ':false': false,
        },
      },
    );
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw toJournalError(error, 'fenceHolder');
  }
}

/**
 * Pins a claim the attempt holds, before its effect begins or its completion is written (see the
 * module comment). A resend of a pin that landed lands again.
 *
 * @throws UniqueConflictError when the claim is no longer held by `leaseToken` (taken over by
 *   another operation while this attempt stalled): the effect must not begin
 */
export async function pinUniqueOnDynamoDB(calls: ItemCalls, claim: UniqueClaim, leaseToken: string): Promise<void> {
  try {
    await calls.update(
      'pinUnique',
      { pk: uniquePk(claim.name, claim.value) },
      {
        UpdateExpression: `SET ${ClaimAttribute.pinned} = :true`,
        ConditionExpression: JournalCondition.uniqueHeldBy,
        ExpressionAttributeValues: { ':token': leaseToken, ':true': true },
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      },
    );
  } catch (error) {
    if (!isConditionFailure(error)) throw toJournalError(error, 'pinUnique');
    throw new UniqueConflictError(claim.name, claim.value, oldItemOf(error));
  }
}

/** Deletes a hold this attempt still owns; a hold already gone or taken over is left alone. */
export async function letGoUniqueOnDynamoDB(calls: ItemCalls, hold: UniqueHold): Promise<void> {
  try {
    await calls.delete(
      'letGoUnique',
      { pk: uniquePk(hold.claim.name, hold.claim.value) },
      { ConditionExpression: JournalCondition.uniqueHeldBy, ExpressionAttributeValues: { ':token': hold.leaseToken } },
    );
  } catch (error) {
    if (!isConditionFailure(error)) throw toJournalError(error, 'letGoUnique');
  }
}

/**
 * Makes the pinned claims of a completed record permanent one by one (a multi-Region journal,
 * which has no transactions): each `REMOVE holdToken, pinned`, fenced on the token. Sent after
 * the record's fenced completion. Nothing depends on it: a pinned claim is already refused to
 * every other operation, and its own operation, completed, never runs again. So a write cut off
 * (a cross-Region conflict outlasting the bound, a throttle, the Lambda ending) leaves the claim
 * pinned and the completion stands; the conflicts are counted like any other.
 */
export async function makeHoldsPermanentOnDynamoDB(
  calls: ItemCalls,
  holds: readonly UniqueClaim[],
  leaseToken: string,
): Promise<void> {
  for (const claim of holds) {
    await calls
      .update(
        'makeUniquePermanent',
        { pk: uniquePk(claim.name, claim.value) },
        {
          UpdateExpression: `REMOVE ${ClaimAttribute.holdToken}, ${ClaimAttribute.pinned}`,
          ConditionExpression: JournalCondition.uniqueHeldBy,
          ExpressionAttributeValues: { ':token': leaseToken },
        },
      )
      .catch(() => undefined);
  }
}

import { UniqueConflictError } from '../core/index.js';
import { uniqueItem } from './completion-writes.js';
import { JournalCondition } from './conditions.js';
import { isConditionFailure, oldItemOf, toJournalError, type ItemCalls } from './item-calls.js';
import type { UniqueClaim, UniqueHold } from './journal.js';
import { newLeaseToken } from './record-lifetime.js';
import { ClaimAttribute, RecordAttribute, RecordStatus, uniquePk, type JournalItem } from './schema.js';

/**
 * Uniqueness claims taken before the effect they guard (`holdUnique`): one conditional put owned
 * by the attempt's lease token (`holdToken`), so a refund that would break a rule is refused
 * before any money moves, not after. A hold lives as long as its attempt: its completion makes
 * it permanent (removes `holdToken`, fenced on it), a release deletes it, and a hold whose
 * attempt's lease ended before any effect can be taken over — after that attempt's record is
 * fenced (its token changed), so the stale holder can neither begin an effect nor complete.
 * Every write here is one single-item write.
 */

/** The claim item of a hold: a permanent claim's attributes plus the holding token. */
export function heldClaimItem(hold: UniqueHold, nowEpochMs: number): JournalItem {
  return { ...uniqueItem(hold.claim, hold.ownerPk, nowEpochMs), [ClaimAttribute.holdToken]: hold.leaseToken };
}

/** Takes `hold.claim` for the attempt, or throws `UniqueConflictError` naming who holds it. */
export async function holdUniqueOnDynamoDB(calls: ItemCalls, hold: UniqueHold, nowEpochMs: number): Promise<void> {
  const item = heldClaimItem(hold, nowEpochMs);
  let held: JournalItem | undefined;
  try {
    await calls.put('holdUnique', item, {
      ConditionExpression: JournalCondition.uniqueHoldable,
      ExpressionAttributeNames: { '#pk': 'pk' },
      ExpressionAttributeValues: { ':owner': hold.ownerPk },
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    });
    return;
  } catch (error) {
    if (!isConditionFailure(error)) throw toJournalError(error, 'holdUnique');
    held = oldItemOf(error);
  }
  // The SDK resent a put that had landed: the hold is ours.
  if (held?.[ClaimAttribute.holdToken] === hold.leaseToken) return;
  const staleToken = held?.[ClaimAttribute.holdToken];
  const conflict = () => new UniqueConflictError(hold.claim.name, hold.claim.value, held);
  if (typeof staleToken !== 'string' || typeof held?.[ClaimAttribute.claimedBy] !== 'string') throw conflict();
  if (!(await holderGone(calls, held[ClaimAttribute.claimedBy] as string, staleToken, nowEpochMs))) throw conflict();
  try {
    await calls.put('holdUnique', item, {
      ConditionExpression: JournalCondition.uniqueHeldBy,
      ExpressionAttributeValues: { ':token': staleToken },
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    });
  } catch (error) {
    if (!isConditionFailure(error)) throw toJournalError(error, 'holdUnique');
    // Someone else changed the claim since it was read (made permanent, taken over): it is theirs.
    throw new UniqueConflictError(hold.claim.name, hold.claim.value, oldItemOf(error));
  }
}

/**
 * Whether the attempt holding a claim under `staleToken` can do nothing more with it: its record
 * is gone (released before any effect), or began no effect and is held under another token, or —
 * in progress under an ended lease with no effect begun — is fenced now by a fresh token. A live
 * holder, and a record whose effect began or is `UNKNOWN`, keep the claim.
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
 * Makes the held claims of a completed record permanent one by one (a multi-Region journal, which
 * has no transactions): each `REMOVE holdToken`, fenced on it. Sent after the record's fenced
 * completion, once no takeover can take the holds any more (a completed holder keeps its claims);
 * a write that fails leaves the hold in place, still owned by the completed record.
 */
export async function makeHoldsPermanentOnDynamoDB(
  calls: ItemCalls,
  holds: readonly UniqueClaim[],
  leaseToken: string,
): Promise<void> {
  for (const claim of holds) {
    try {
      await calls.update(
        'complete',
        { pk: uniquePk(claim.name, claim.value) },
        {
          UpdateExpression: `REMOVE ${ClaimAttribute.holdToken}`,
          ConditionExpression: JournalCondition.uniqueHeldBy,
          ExpressionAttributeValues: { ':token': leaseToken },
        },
      );
    } catch (error) {
      if (!isConditionFailure(error)) throw toJournalError(error, 'complete');
    }
  }
}

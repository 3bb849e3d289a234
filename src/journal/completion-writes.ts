import { sha256Hex } from '../core/index.js';
import { JournalCondition } from './conditions.js';
import type { CompletionWrites, OutboxEvent, TransactItem, UniqueClaim } from './journal.js';
import { expiryFromNow } from './record-lifetime.js';
import {
  ClaimAttribute,
  outboxPk,
  RecordAttribute,
  RecordKind,
  RecordStatus,
  uniquePk,
  type JournalItem,
} from './schema.js';
import { responseAttributes, type EncodedResponse } from './stored-response.js';

/**
 * What a completion writes besides the handler's own staged writes: the update that makes the
 * record `COMPLETED` with its response, and the uniqueness claims and outbox items that land
 * in the same transaction. Both journals build these items here.
 */

/** Outbox items outlive their dispatch by this long, then DynamoDB TTL removes them (the dispatcher sets it). */
export const OUTBOX_RETENTION_SECONDS = 7 * 24 * 3600;

/** The `outbox#<eventId>` item written by the completion transaction: no `expiresAt` until it was dispatched. */
export function outboxItem(event: OutboxEvent, sourcePk: string): JournalItem {
  return {
    pk: outboxPk(event.eventId),
    kind: RecordKind.outbox,
    eventId: event.eventId,
    type: event.type,
    detail: JSON.stringify(event.detail ?? null),
    occurredAt: event.occurredAt,
    source: sourcePk,
  };
}

/** The `uniq#<name>#<value>` item: no `expiresAt`, a business rule does not lapse. */
export function uniqueItem(claim: UniqueClaim, ownerPk: string, nowEpochMs: number): JournalItem {
  return {
    pk: uniquePk(claim.name, claim.value),
    kind: RecordKind.unique,
    [ClaimAttribute.claimName]: claim.name,
    [ClaimAttribute.claimValue]: claim.value,
    [ClaimAttribute.claimedBy]: ownerPk,
    createdAt: nowEpochMs,
  };
}

/** A transaction `Put` that fails when the item exists, returning the item held so a conflict can say who holds it. */
export function putIfAbsent(tableName: string, item: JournalItem): TransactItem {
  const put = {
    TableName: tableName,
    Item: item,
    ConditionExpression: JournalCondition.itemAbsent,
    ExpressionAttributeNames: { '#pk': 'pk' },
    ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
  };
  return { Put: put as TransactItem['Put'] };
}

/**
 * The completion transaction's update that makes a claim held by `holdUnique` permanent (pinned
 * or not), on condition that this attempt still holds it (a takeover of a stale hold cancels the
 * completion).
 */
export function permanentClaimUpdate(tableName: string, claim: UniqueClaim, leaseToken: string): TransactItem {
  const update = {
    TableName: tableName,
    Key: { pk: uniquePk(claim.name, claim.value) },
    UpdateExpression: `REMOVE ${ClaimAttribute.holdToken}, ${ClaimAttribute.pinned}`,
    ConditionExpression: JournalCondition.uniqueHeldBy,
    ExpressionAttributeValues: { ':token': leaseToken },
    ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
  };
  return { Update: update as TransactItem['Update'] };
}

/** What {@link completionTransaction} lays out. */
export interface CompletionTransaction {
  readonly tableName: string;
  /** The record's own write: its condition decides who completes. */
  readonly recordWrite: TransactItem;
  readonly pk: string;
  readonly writes: CompletionWrites;
  readonly nowEpochMs: number;
  /** The completing lease token, which held claims (`writes.heldClaims`) are fenced on. */
  readonly leaseToken?: string;
  /** Items after everything else (the chunks of a large staged-only response). */
  readonly trailing?: readonly TransactItem[];
}

/**
 * The items of a completing transaction, in the order its cancellation reasons are read by:
 * the record's own write first, then the new uniqueness claims, the held claims made
 * permanent, the outbox events and the handler's staged writes, then any trailing items.
 */
export function completionTransaction(layout: CompletionTransaction): TransactItem[] {
  const { tableName, pk, writes, nowEpochMs } = layout;
  const held = writes.heldClaims ?? [];
  if (held.length > 0 && layout.leaseToken === undefined)
    throw new Error('A completion that makes held claims permanent needs the lease token holding them');
  return [
    layout.recordWrite,
    ...writes.uniqueClaims.map((claim) => putIfAbsent(tableName, uniqueItem(claim, pk, nowEpochMs))),
    ...held.map((claim) => permanentClaimUpdate(tableName, claim, layout.leaseToken as string)),
    ...writes.outbox.map((event) => putIfAbsent(tableName, outboxItem(event, pk))),
    ...writes.staged,
    ...(layout.trailing ?? []),
  ];
}

/**
 * Who may complete a record:
 * - `lease`: the attempt holding `leaseToken`, while the record is not completed (every attempt);
 * - `operator`: anyone, while the record is `UNKNOWN` or in progress under an ended lease (an
 *   operator's resolution, which is not fenced by a lease); the record takes `newToken`, which
 *   also names its response chunks.
 */
export type CompletionFence =
  { readonly kind: 'lease'; readonly leaseToken: string } | { readonly kind: 'operator'; readonly newToken: string };

/**
 * The conditional `UpdateItem` that completes a record: status, the encoded response (inline,
 * or the number of chunk items written before it), `updatedAt` and a fresh `expiresAt`, on
 * the fence's condition.
 */
export function completionUpdate(
  pk: string,
  encoded: EncodedResponse,
  nowEpochMs: number,
  ttlSeconds: number,
  fence: CompletionFence,
) {
  const names: Record<string, string> = { '#status': RecordAttribute.status };
  const values: Record<string, unknown> = {
    ':completed': RecordStatus.completed,
    ':nowMs': nowEpochMs,
    ':expiresAt': expiryFromNow(nowEpochMs, ttlSeconds),
  };
  const sets = [
    '#status = :completed',
    `${RecordAttribute.updatedAt} = :nowMs`,
    `${RecordAttribute.expiresAt} = :expiresAt`,
  ];
  // `response` is a DynamoDB reserved word: every response attribute goes through a name placeholder.
  for (const [name, value] of Object.entries(responseAttributes(encoded))) {
    names[`#${name}`] = name;
    values[`:${name}`] = value;
    sets.push(`#${name} = :${name}`);
  }
  let condition: string;
  if (fence.kind === 'lease') {
    condition = JournalCondition.leaseHeldNotCompleted;
    values[':mine'] = fence.leaseToken;
  } else {
    condition = JournalCondition.resolvable;
    sets.push(`${RecordAttribute.leaseToken} = :newToken`);
    Object.assign(values, {
      ':newToken': fence.newToken,
      ':unknown': RecordStatus.unknown,
      ':inProgress': RecordStatus.inProgress,
    });
  }
  return {
    Key: { pk },
    UpdateExpression: `SET ${sets.join(', ')}`,
    ConditionExpression: condition,
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: values,
  };
}

/**
 * The `ClientRequestToken` of a completing transaction: derived from the record and the token
 * completing it, so an SDK resend of a transaction that landed is a no-op instead of a
 * conflict (DynamoDB remembers a token for 10 minutes; the token must change with the
 * attempt, which a fresh lease or commit token does).
 */
export function transactionToken(pk: string, leaseToken: string): string {
  return sha256Hex(`${pk}\n${leaseToken}`).slice(0, 36);
}

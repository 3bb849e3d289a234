import { hash } from 'node:crypto';
import { fromAttributeMap, type AttributeMap } from './attribute-values.js';
import { classifyCancellation, type CompletionLayout } from './dynamodb-errors.js';
import { outboxItem, putIfAbsent, uniqueItem } from './completion-writes.js';
import type { ItemCalls } from './item-calls.js';
import type { StagedCommit, StagedCommitResult, TransactItem } from './journal.js';
import { recordFromItem } from './record-item.js';
import { RecordStatus, type JournalItem } from './schema.js';
import type { ResponseChunks } from './stored-response.js';
import { stagedCommitCondition, stagedCommitItems } from './staged-commit.js';

type CancellationReason = { Code?: string; Item?: Record<string, unknown> };
type AwsError = { name?: string; CancellationReasons?: CancellationReason[] };

/** Where a staged commit goes: the journal table and its calls. */
export interface StagedCommitTarget {
  readonly tableName: string;
  readonly calls: ItemCalls;
  readonly chunks: ResponseChunks;
}

/**
 * Commits a staged-only attempt in one `TransactWriteItems`: the `COMPLETED` record (its
 * condition first, so its cancellation reason is item 0), uniqueness claims, outbox events,
 * the handler's staged writes, then the chunks of a large response.
 */
export async function commitStagedOnDynamoDB(
  target: StagedCommitTarget,
  commit: StagedCommit,
  nowEpochMs: number,
): Promise<StagedCommitResult> {
  const { tableName, calls } = target;
  const { writes } = commit;
  const { record, chunks } = stagedCommitItems(commit, nowEpochMs);
  const recordPut = { TableName: tableName, Item: record, ...stagedCommitCondition(commit.over, nowEpochMs) };
  const items: TransactItem[] = [
    { Put: { ...recordPut, ReturnValuesOnConditionCheckFailure: 'ALL_OLD' } as unknown as TransactItem['Put'] },
    ...writes.uniqueClaims.map((claim) => putIfAbsent(tableName, uniqueItem(claim, commit.pk, nowEpochMs))),
    ...writes.outbox.map((event) => putIfAbsent(tableName, outboxItem(event, commit.pk))),
    ...writes.staged,
    ...chunks.map((chunk) => ({ Put: { TableName: tableName, Item: chunk } })),
  ];
  try {
    // The token makes an SDK resend of a transaction that landed a success instead of a refusal.
    await calls.transactWrite(
      'commitStaged',
      items,
      hash('sha256', `${commit.pk}\n${commit.commitToken}`).slice(0, 36),
    );
    return { kind: 'committed' };
  } catch (error) {
    const held = recordHeld(error);
    if (!held) return classify(error, { tableName, items, writes });
    const found = recordFromItem(held);
    // A resend of ours that had landed, once the token's window is over: the record is our own.
    if (found.leaseToken === commit.commitToken) return { kind: 'committed' };
    const replayable = found.status === RecordStatus.completed && found.fingerprint === commit.fingerprint;
    return { kind: 'refused', record: replayable ? await target.chunks.attach(held, found) : found };
  }
}

/** The record returned with a cancellation on the record's own condition. */
function recordHeld(error: unknown): JournalItem | undefined {
  const reason =
    (error as AwsError)?.name === 'TransactionCanceledException'
      ? (error as AwsError).CancellationReasons?.[0]
      : undefined;
  return reason?.Code === 'ConditionalCheckFailed' && reason.Item
    ? fromAttributeMap(reason.Item as AttributeMap)
    : undefined;
}

/**
 * Why a staged commit whose record condition held was cancelled. A concurrent transaction
 * wins over every other reason: once it has landed, the record may decide. Everything else
 * is read as a leased completion's cancellation is (a claim held, a staged write's own
 * condition, a write the handler queued that DynamoDB refused, throttling).
 */
function classify(error: unknown, layout: CompletionLayout): StagedCommitResult {
  const name = (error as AwsError)?.name;
  if (name === 'TransactionInProgressException') return { kind: 'raced' };
  const reasons = name === 'TransactionCanceledException' ? (error as AwsError).CancellationReasons : undefined;
  // The record's own condition failing without the record (never seen) is read again like a race.
  if (reasons?.[0]?.Code === 'ConditionalCheckFailed') return { kind: 'raced' };
  if (reasons?.some((reason) => reason.Code === 'TransactionConflict')) return { kind: 'raced' };
  throw classifyCancellation(error, layout);
}

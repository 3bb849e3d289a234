import { claimParameters, JournalCondition } from './conditions.js';
import { ResponseTooLargeError, StagedWriteError } from '../core/index.js';
import { completionTransaction, outboxItem, transactionToken, uniqueItem } from './completion-writes.js';
import type { CompletionWrites, StagedCommit, TransactItem, StagedCommitResult } from './journal.js';
import { newRecordItem, recordFromItem } from './record-item.js';
import { expiryFromNow } from './record-lifetime.js';
import { RecordStatus, type JournalItem } from './schema.js';
import {
  chunkItems,
  encodeResponse,
  responseAttributes,
  responseJson,
  type ResponseChunks,
} from './stored-response.js';
import { classifyCancellation, type CompletionLayout } from './dynamodb-errors.js';
import { ITEM_MAX_BYTES, itemBytes } from './item-size.js';
import {
  cancellationReasonsOf,
  isConditionFailure,
  itemOf,
  oldItemOf,
  toJournalError,
  tableOf,
  toTransactWriteItem,
  type AwsError,
  type ItemCalls,
} from './item-calls.js';

/** Most items one `TransactWriteItems` may carry (DynamoDB's limit). */
export const TRANSACTION_MAX_ITEMS = 100;
/** Most bytes of items one `TransactWriteItems` may carry (DynamoDB's 4 MB limit). */
const TRANSACTION_MAX_BYTES = 4 * 1024 * 1024;
/** Room kept below the 4 MB limit: the size of a staged `Update` is estimated from its key and values. */
const TRANSACTION_MARGIN_BYTES = 64 * 1024;

/**
 * The condition of the record's `Put` in a staged commit: `JournalGuard.stagedCommitClaimable` in DynamoDB's
 * words, so a new key, a record past its `expiresAt` and an abandoned lease are all claimed by
 * the first transaction; any other record comes back to decide on.
 */
function stagedCommitCondition(nowEpochMs: number, fingerprint: string) {
  const { ExpressionAttributeNames, ExpressionAttributeValues } = claimParameters(nowEpochMs);
  return {
    ConditionExpression: JournalCondition.stagedCommitClaimable,
    ExpressionAttributeNames,
    ExpressionAttributeValues: { ...ExpressionAttributeValues, ':false': false, ':fingerprint': fingerprint },
  };
}

/** The items of a staged commit besides the handler's writes: the record, and the chunks of a large response. */
export interface StagedCommitItems {
  readonly record: JournalItem;
  readonly chunks: readonly JournalItem[];
}

/**
 * Builds the `COMPLETED` record (and chunk items) of a staged commit and checks that they fit
 * in one transaction with the writes: at most {@link TRANSACTION_MAX_ITEMS} items and
 * {@link TRANSACTION_MAX_BYTES}.
 *
 * @throws ResponseTooLargeError when the response does not fit (nothing was sent): the caller
 *   commits the writes with a marker instead, as the leased completion does
 */
export function stagedCommitItems(commit: StagedCommit, nowEpochMs: number): StagedCommitItems {
  const encoded = encodeResponse(commit.response);
  const expiresAt = expiryFromNow(nowEpochMs, commit.ttlSeconds);
  const record: JournalItem = {
    ...newRecordItem({
      pk: commit.pk,
      status: RecordStatus.completed,
      fingerprint: commit.fingerprint,
      leaseToken: commit.commitToken,
      leaseUntilEpochMs: nowEpochMs,
      createdAtEpochMs: commit.createdAtEpochMs,
      updatedAtEpochMs: nowEpochMs,
      expiresAtEpochSeconds: expiresAt,
    }),
    ...responseAttributes(encoded),
  };
  const chunks = chunkItems(commit.pk, commit.commitToken, encoded, expiresAt);
  const { writes } = commit;
  const count = 1 + chunks.length + writes.staged.length + writes.uniqueClaims.length + writes.outbox.length;
  if (count > TRANSACTION_MAX_ITEMS) throw new ResponseTooLargeError(Buffer.byteLength(responseJson(commit.response)));
  // An inline JSON response is a few KB at most: storing a marker instead could not make the writes fit, so no need to
  // weigh them.
  if (encoded.encoding === 'json') return { record, chunks };
  const bytes =
    [record, ...chunks].reduce((sum, item) => sum + itemBytes(item), 0) + writesBytes(commit.pk, writes, nowEpochMs);
  if (bytes > TRANSACTION_MAX_BYTES - TRANSACTION_MARGIN_BYTES) throw new ResponseTooLargeError(bytes);
  return { record, chunks };
}

/**
 * Refuses, when the handler stages it, a write DynamoDB could not take: a value the SDK cannot
 * marshal (a `Date`, a class instance), an entry of no known kind, or an item over 400 KB. It
 * is the handler's error, raised where it is made, so the commit never fails for it later and
 * is never mistaken for the journal's.
 *
 * @throws StagedWriteError naming the write (`staged write #<index> (table <name>)`)
 */
export function assertStageable(entry: TransactItem, index: number): void {
  const item = () => `staged write #${index} (table ${tableOf(entry)})`;
  try {
    toTransactWriteItem(entry);
  } catch (error) {
    throw new StagedWriteError(item(), `it cannot be sent to DynamoDB: ${(error as Error).message}`, { cause: error });
  }
  const bytes = stagedBytes(entry);
  if (bytes > ITEM_MAX_BYTES)
    throw new StagedWriteError(item(), `it is ${bytes} bytes, over DynamoDB's ${ITEM_MAX_BYTES}-byte item limit`);
}

function writesBytes(pk: string, writes: CompletionWrites, nowEpochMs: number): number {
  let bytes = 0;
  for (const claim of writes.uniqueClaims) bytes += itemBytes(uniqueItem(claim, pk, nowEpochMs));
  for (const event of writes.outbox) bytes += itemBytes(outboxItem(event, pk));
  for (const entry of writes.staged) bytes += stagedBytes(entry);
  return bytes;
}

function stagedBytes(entry: TransactItem): number {
  const values = (e: { ExpressionAttributeValues?: Record<string, unknown> }) =>
    e.ExpressionAttributeValues ? itemBytes(e.ExpressionAttributeValues) : 0;
  if (entry.Put) return itemBytes(entry.Put.Item) + values(entry.Put);
  const keyed = entry.Update ?? entry.Delete ?? entry.ConditionCheck;
  return keyed ? itemBytes(keyed.Key) + values(keyed) : 0;
}

/** Where a staged commit goes: the journal table and its calls. */
export interface StagedCommitTarget {
  readonly tableName: string;
  readonly calls: ItemCalls;
  readonly chunks: ResponseChunks;
}

/**
 * Commits a staged-only attempt in one `TransactWriteItems`: the `COMPLETED` record (its
 * condition first, so its cancellation reason is item 0), uniqueness claims, outbox events,
 * the handler's staged writes, then the chunks of a large response. An attempt that staged
 * nothing commits its record alone with one conditional `PutItem`.
 */
export async function commitStagedOnDynamoDB(
  target: StagedCommitTarget,
  commit: StagedCommit,
  nowEpochMs: number,
): Promise<StagedCommitResult> {
  const { tableName, calls } = target;
  const { writes } = commit;
  const { record, chunks } = stagedCommitItems(commit, nowEpochMs);
  const recordPut = { TableName: tableName, Item: record, ...stagedCommitCondition(nowEpochMs, commit.fingerprint) };
  const items = completionTransaction({
    tableName,
    recordWrite: {
      Put: { ...recordPut, ReturnValuesOnConditionCheckFailure: 'ALL_OLD' } as unknown as TransactItem['Put'],
    },
    pk: commit.pk,
    writes,
    nowEpochMs,
    trailing: chunks.map((chunk) => ({ Put: { TableName: tableName, Item: chunk } })),
  });
  // Nothing staged, claimed, published or chunked: the record alone, in one conditional PutItem. The same condition on
  // the same item, half the write units of a one-item transaction; a resend of a put that landed finds the record it
  // wrote (its commit token), as a transaction's would.
  const alone = items.length === 1;
  try {
    if (alone) {
      await calls.put('commitStaged', record, { ...recordPut, ReturnValuesOnConditionCheckFailure: 'ALL_OLD' });
    } else {
      // The token makes an SDK resend of a transaction that landed a success instead of a refusal.
      await calls.transactWrite('commitStaged', items, transactionToken(commit.pk, commit.commitToken));
    }
    return { kind: 'committed' };
  } catch (error) {
    const held = alone ? (isConditionFailure(error) ? oldItemOf(error) : undefined) : recordHeld(error);
    if (alone && !held) {
      // The condition failed on a record the answer did not carry (never seen): read again, like a race.
      if (isConditionFailure(error)) return { kind: 'raced' };
      throw toJournalError(error, 'commitStaged');
    }
    if (!held) {
      await assertJournalExists(calls, commit.pk, error);
      return classify(error, { tableName, items, writes });
    }
    const found = recordFromItem(held);
    // A resend of ours that had landed, once the token's window is over: the record is our own.
    if (found.leaseToken === commit.commitToken) return { kind: 'committed' };
    const replayable = found.status === RecordStatus.completed && found.fingerprint === commit.fingerprint;
    return { kind: 'refused', record: replayable ? await target.chunks.attach(held, found) : found };
  }
}

/**
 * A missing table named by no one (DynamoDB's `ResourceNotFoundException` does not say which
 * table of a transaction it is about) is the journal's when the journal's own table cannot be
 * read either: in this mode the commit is the journal's first call, so a misnamed journal table
 * shows up here and must be reported as the journal's outage, not blamed on a staged write.
 *
 * @throws JournalUnavailableError when the journal's table is missing
 */
async function assertJournalExists(calls: ItemCalls, pk: string, error: unknown): Promise<void> {
  if ((error as AwsError)?.name !== 'ResourceNotFoundException') return;
  try {
    await calls.get('get', { pk });
  } catch (probe) {
    if ((probe as AwsError)?.name === 'ResourceNotFoundException') throw toJournalError(error, 'commitStaged');
  }
}

/** The record returned with a cancellation on the record's own condition. */
function recordHeld(error: unknown): JournalItem | undefined {
  const reason = cancellationReasonsOf(error)?.[0];
  return reason?.Code === 'ConditionalCheckFailed' ? itemOf(reason) : undefined;
}

/**
 * Why a staged commit whose record condition held was cancelled. A concurrent transaction
 * wins over every other reason: once it has landed, the record may decide. Everything else
 * is read as a leased completion's cancellation is (a claim held, a staged write's own
 * condition, a write the handler queued that DynamoDB refused, throttling).
 */
function classify(error: unknown, layout: CompletionLayout): StagedCommitResult {
  if ((error as AwsError)?.name === 'TransactionInProgressException') return { kind: 'raced' };
  const reasons = cancellationReasonsOf(error);
  // The record's own condition failing without the record (never seen) is read again like a race.
  if (reasons?.[0]?.Code === 'ConditionalCheckFailed') return { kind: 'raced' };
  if (reasons?.some((reason) => reason.Code === 'TransactionConflict')) return { kind: 'raced' };
  throw classifyCancellation(error, layout);
}

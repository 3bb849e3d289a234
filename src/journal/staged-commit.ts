import { claimParameters, JournalCondition } from './conditions.js';
import { ResponseTooLargeError } from '../core/index.js';
import { outboxItem, uniqueItem } from './completion-writes.js';
import type { CompletionWrites, StagedCommit, TransactItem } from './journal.js';
import { newRecordItem } from './record-item.js';
import { expiryFromNow } from './record-lifetime.js';
import { RecordStatus, type JournalItem } from './schema.js';
import { chunkItems, encodeResponse, responseAttributes, responseJson } from './stored-response.js';

/** Most items one `TransactWriteItems` may carry (DynamoDB's limit). */
export const TRANSACTION_MAX_ITEMS = 100;
/** Most bytes of items one `TransactWriteItems` may carry (DynamoDB's 4 MB limit). */
export const TRANSACTION_MAX_BYTES = 4 * 1024 * 1024;
/** Room kept below the 4 MB limit: the size of a staged `Update` is estimated from its key and values. */
const TRANSACTION_MARGIN_BYTES = 64 * 1024;

/**
 * The condition of the record's `Put` in a staged commit. Over `absent` it is the cheapest one
 * DynamoDB evaluates (a new key is the common case, and a record found comes back to decide
 * on); over `claimable` it is `isClaimableByCommit` in DynamoDB's words.
 */
export function stagedCommitCondition(over: StagedCommit['over'], nowEpochMs: number) {
  if (over === 'absent')
    return { ConditionExpression: JournalCondition.itemAbsent, ExpressionAttributeNames: { '#pk': 'pk' } };
  const { ExpressionAttributeNames, ExpressionAttributeValues } = claimParameters(nowEpochMs);
  return {
    ConditionExpression: JournalCondition.stagedCommitClaimable,
    ExpressionAttributeNames,
    ExpressionAttributeValues: { ...ExpressionAttributeValues, ':false': false },
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
  // An inline JSON response is a few KB at most: storing a marker instead could not make the writes fit, so no need to weigh them.
  if (encoded.encoding === 'json') return { record, chunks };
  const bytes =
    [record, ...chunks].reduce((sum, item) => sum + itemBytes(item), 0) + writesBytes(commit.pk, writes, nowEpochMs);
  if (bytes > TRANSACTION_MAX_BYTES - TRANSACTION_MARGIN_BYTES) throw new ResponseTooLargeError(bytes);
  return { record, chunks };
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

/** DynamoDB's size of an item: attribute names plus values, by its published rules. */
function itemBytes(item: Record<string, unknown>): number {
  let bytes = 0;
  for (const [name, value] of Object.entries(item))
    if (value !== undefined) bytes += Buffer.byteLength(name, 'utf8') + valueBytes(value);
  return bytes;
}

function valueBytes(value: unknown): number {
  if (typeof value === 'string') return Buffer.byteLength(value, 'utf8');
  if (typeof value === 'number' || typeof value === 'bigint')
    return Math.ceil(String(value).replace(/[-.]/g, '').length / 2) + 1;
  if (typeof value === 'boolean' || value === null) return 1;
  if (value instanceof Uint8Array) return value.byteLength;
  if (value instanceof Set || Array.isArray(value)) {
    let bytes = 3;
    for (const element of value) bytes += 1 + valueBytes(element);
    return bytes;
  }
  if (typeof value === 'object') {
    let bytes = 3;
    for (const [name, element] of Object.entries(value as Record<string, unknown>)) {
      if (element !== undefined) bytes += 1 + Buffer.byteLength(name, 'utf8') + valueBytes(element);
    }
    return bytes;
  }
  return 0;
}

import { JournalCondition } from './conditions.js';
import { ResponseTooLargeError } from '../core/index.js';
import { expiryFromNow, isClaimable, outboxItem, uniqueItem } from './items.js';
import type { CompletionWrites, JournalRecord, StagedCommit, TransactItem } from './journal.js';
import type { JournalItem } from './record-item.js';
import { encodeResponse, responseJson, type EncodedResponse } from './response-codec.js';
import { chunkPk, RecordKind, RecordPrefix, RecordStatus } from './schema.js';

/** Most items one `TransactWriteItems` may carry (DynamoDB's limit). */
export const TRANSACTION_MAX_ITEMS = 100;
/** Most bytes of items one `TransactWriteItems` may carry (DynamoDB's 4 MB limit). */
export const TRANSACTION_MAX_BYTES = 4 * 1024 * 1024;
/** Room kept below the 4 MB limit: the size of a staged `Update` is estimated from its key and values. */
const TRANSACTION_MARGIN_BYTES = 64 * 1024;

/**
 * Whether a staged commit may claim over an existing record: one a reservation could claim
 * (past `expiresAt`, no live lease), or a leased attempt that vanished before it began any
 * effect — exactly what a takeover would run again, so committing over it runs nothing twice;
 * that attempt's own later writes are fenced on its token.
 */
export function isClaimableByCommit(
  record: Pick<JournalRecord, 'expiresAtEpochSeconds' | 'status' | 'leaseUntilEpochMs' | 'effectStarted'>,
  nowEpochMs: number,
): boolean {
  if (isClaimable(record, nowEpochMs)) return true;
  return record.status === RecordStatus.inProgress && record.leaseUntilEpochMs < nowEpochMs && !record.effectStarted;
}

/**
 * The condition of the record's `Put` in a staged commit. Over `absent` it is the cheapest one
 * DynamoDB evaluates (a new key is the common case, and a record found comes back to decide
 * on); over `claimable` it is {@link isClaimableByCommit} in DynamoDB's words.
 */
export function stagedCommitCondition(over: StagedCommit['over'], nowEpochMs: number) {
  if (over === 'absent') return { ConditionExpression: JournalCondition.itemAbsent, ExpressionAttributeNames: { '#pk': 'pk' } };
  return {
    ConditionExpression: JournalCondition.stagedCommitClaimable,
    ExpressionAttributeNames: { '#pk': 'pk', '#status': 'status' },
    ExpressionAttributeValues: {
      ':nowSeconds': Math.floor(nowEpochMs / 1000),
      ':nowMs': nowEpochMs,
      ':inProgress': RecordStatus.inProgress,
      ':false': false,
    },
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
    pk: commit.pk,
    kind: commit.pk.startsWith(RecordPrefix.message) ? RecordKind.message : RecordKind.request,
    status: RecordStatus.completed,
    fingerprint: commit.fingerprint,
    leaseToken: commit.commitToken,
    leaseUntil: nowEpochMs,
    attempt: 1,
    createdAt: commit.createdAtEpochMs,
    updatedAt: nowEpochMs,
    expiresAt,
    evidence: {},
    effectStarted: false,
    ...responseAttributes(encoded),
  };
  const chunks =
    encoded.encoding === 'chunked'
      ? encoded.chunks.map((data, i) => ({
          pk: chunkPk(commit.pk, commit.commitToken, i),
          kind: RecordKind.chunk,
          data,
          expiresAt,
        }))
      : [];
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

function responseAttributes(encoded: EncodedResponse): JournalItem {
  if (encoded.encoding === 'json') return { responseEncoding: 'json', response: encoded.text };
  if (encoded.encoding === 'gzip') return { responseEncoding: 'gzip', response: encoded.bytes };
  return { responseEncoding: 'chunked', responseChunks: encoded.chunks.length };
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

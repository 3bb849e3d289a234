import { gzipSync } from 'node:zlib';
import { MultiRegionUnsupportedError, OutboxTooLargeError } from '../core/index.js';
import { completionUpdate } from './completion-writes.js';
import { ITEM_MAX_BYTES, itemBytes } from './item-size.js';
import type { CompletionWrites, OutboxEvent } from './journal.js';
import { RecordAttribute, type JournalItem } from './schema.js';
import { responseAttributes, type EncodedResponse } from './stored-response.js';

/**
 * The completion of a multi-Region (MRSC) journal: one fenced `UpdateItem` of the record,
 * carrying the outcome and the attempt's outbox events (MRSC has no transactions, so nothing
 * else may commit with it). The dispatcher fans the events out from the completed record's
 * stream image, with the same stable ids and message shape as outbox items.
 *
 * What bounds the events is therefore the record's item, not a transaction: 400 KB, of which
 * the record keeps {@link RECORD_OWN_BYTES} for its own attributes. The response moves to chunk
 * items when it would crowd the events, so the events may use everything else.
 */

/**
 * What a completed record keeps of its item besides its response and its outbox events: its key,
 * fingerprint, tokens, timestamps, effect name and evidence, and the pointer to a chunked
 * response. A record whose own attributes outgrow it (evidence of many KB) is refused by DynamoDB
 * itself, which the journal reports as {@link OutboxTooLargeError} too.
 */
const RECORD_OWN_BYTES = 16 * 1024;

/**
 * Most bytes of outbox events one record carries: DynamoDB's 400 KB item less what the record
 * keeps for itself, counted as DynamoDB counts the `outboxEvents` attribute (its name and the
 * JSON text of the events).
 */
export const OUTBOX_IN_RECORD_MAX_BYTES = ITEM_MAX_BYTES - RECORD_OWN_BYTES;

/** The JSON text of the outbox events stored in a record, in publishing order. */
export function outboxEventsJson(events: readonly OutboxEvent[]): string {
  return JSON.stringify(
    events.map(({ eventId, type, detail, occurredAt }) => ({ eventId, type, detail: detail ?? null, occurredAt })),
  );
}

/** The bytes of the record's `outboxEvents` attribute holding `outboxJson`. */
export function outboxEventsBytes(outboxJson: string): number {
  return itemBytes({ [RecordAttribute.outboxEvents]: outboxJson });
}

/**
 * The response layout for a record that also carries `outboxJson`: unchanged when both fit in
 * {@link OUTBOX_IN_RECORD_MAX_BYTES}, else the response as one gzip chunk item written before the
 * completion (rule 6).
 *
 * @throws OutboxTooLargeError when the events alone exceed {@link OUTBOX_IN_RECORD_MAX_BYTES}
 */
export function roomForEvents(encoded: EncodedResponse, outboxJson: string | undefined): EncodedResponse {
  if (outboxJson === undefined) return encoded;
  const eventBytes = outboxEventsBytes(outboxJson);
  if (eventBytes > OUTBOX_IN_RECORD_MAX_BYTES) throw new OutboxTooLargeError(eventBytes, OUTBOX_IN_RECORD_MAX_BYTES);
  if (encoded.encoding === 'chunked') return encoded;
  if (itemBytes(responseAttributes(encoded)) + eventBytes <= OUTBOX_IN_RECORD_MAX_BYTES) return encoded;
  return { encoding: 'chunked', chunks: [encoded.encoding === 'gzip' ? encoded.bytes : gzipSync(encoded.text)] };
}

/**
 * The bytes a record item leaves its outbox events once it holds `encoded`: DynamoDB's 400 KB less
 * the record's own attributes as read (the events and response it may already hold left out) and
 * the response's.
 */
export function roomLeftForEvents(record: JournalItem, encoded: EncodedResponse): number {
  const own = Object.fromEntries(Object.entries(record).filter(([name]) => !REPLACED_BY_COMPLETION.has(name)));
  return ITEM_MAX_BYTES - itemBytes(own) - itemBytes(responseAttributes(encoded));
}

/** The attributes a completion writes anew: the response's and the events'. */
const REPLACED_BY_COMPLETION: ReadonlySet<string> = new Set([
  RecordAttribute.response,
  RecordAttribute.responseEncoding,
  RecordAttribute.responseChunks,
  RecordAttribute.outboxEvents,
]);

/** What a multi-Region completion stores: the response layout and the events' JSON (undefined without events). */
export interface SingleItemCompletion {
  readonly encoded: EncodedResponse;
  readonly outboxJson?: string;
}

/**
 * Checks what the handler queued and lays the completion out for one item.
 *
 * @throws MultiRegionUnsupportedError for staged writes or uniqueness claims (they need a transaction);
 *   OutboxTooLargeError for events the record cannot hold
 */
export function singleItemLayout(encoded: EncodedResponse, writes: CompletionWrites | undefined): SingleItemCompletion {
  if (writes?.staged.length) throw new MultiRegionUnsupportedError('stage()');
  if (writes?.uniqueClaims.length) throw new MultiRegionUnsupportedError('claimUnique()');
  const outboxJson = writes?.outbox.length ? outboxEventsJson(writes.outbox) : undefined;
  return { encoded: roomForEvents(encoded, outboxJson), outboxJson };
}

/** The fenced `UpdateItem` completing a record held by `leaseToken`, with its outbox events when it has some. */
export function singleItemCompletionUpdate(
  pk: string,
  completion: SingleItemCompletion,
  nowEpochMs: number,
  ttlSeconds: number,
  leaseToken: string,
) {
  const update = completionUpdate(pk, completion.encoded, nowEpochMs, ttlSeconds, { kind: 'lease', leaseToken });
  if (completion.outboxJson === undefined) return update;
  return {
    ...update,
    UpdateExpression: `${update.UpdateExpression}, #outboxEvents = :outboxEvents`,
    ExpressionAttributeNames: { ...update.ExpressionAttributeNames, '#outboxEvents': RecordAttribute.outboxEvents },
    ExpressionAttributeValues: { ...update.ExpressionAttributeValues, ':outboxEvents': completion.outboxJson },
  };
}

import { gzipSync } from 'node:zlib';
import { IdempotencyError, MultiRegionUnsupportedError } from '../core/index.js';
import { completionUpdate } from './completion-writes.js';
import type { CompletionWrites, OutboxEvent } from './journal.js';
import { RecordAttribute } from './schema.js';
import type { EncodedResponse } from './stored-response.js';

/**
 * The completion of a multi-Region (MRSC) journal: one fenced `UpdateItem` of the record,
 * carrying the outcome and the attempt's outbox events (MRSC has no transactions, so nothing
 * else may commit with it). The dispatcher fans the events out from the completed record's
 * stream image, with the same stable ids and message shape as outbox items.
 */

/** Most bytes of outbox events one record carries (their JSON), leaving the rest of the 400 KB item to the record. */
export const OUTBOX_IN_RECORD_MAX_BYTES = 64 * 1024;
/** Above this, an inline response moves to chunk items so the record and its events fit in one item. */
const RECORD_ROOM_BYTES = 350 * 1024;

/** The JSON text of the outbox events stored in a record, in publishing order. */
export function outboxEventsJson(events: readonly OutboxEvent[]): string {
  return JSON.stringify(
    events.map(({ eventId, type, detail, occurredAt }) => ({ eventId, type, detail: detail ?? null, occurredAt })),
  );
}

/**
 * The response layout for a record that also carries `outboxJson`: unchanged when both fit in
 * one item, else the response as one gzip chunk item written before the completion (rule 6).
 *
 * @throws IdempotencyError (`too-many-writes`) when the events alone exceed {@link OUTBOX_IN_RECORD_MAX_BYTES}
 */
export function roomForEvents(encoded: EncodedResponse, outboxJson: string | undefined): EncodedResponse {
  if (outboxJson === undefined || encoded.encoding === 'chunked') return encoded;
  const eventBytes = Buffer.byteLength(outboxJson, 'utf8');
  if (eventBytes > OUTBOX_IN_RECORD_MAX_BYTES) {
    throw new IdempotencyError(
      'too-many-writes',
      `A multi-Region completion carries its outbox events inside its record: ${eventBytes} bytes of events exceed ${OUTBOX_IN_RECORD_MAX_BYTES}`,
    );
  }
  const responseBytes =
    encoded.encoding === 'json' ? Buffer.byteLength(encoded.text, 'utf8') : encoded.bytes.byteLength;
  if (responseBytes + eventBytes <= RECORD_ROOM_BYTES) return encoded;
  return { encoding: 'chunked', chunks: [encoded.encoding === 'gzip' ? encoded.bytes : gzipSync(encoded.text)] };
}

/** What a multi-Region completion stores: the response layout and the events' JSON (undefined without events). */
export interface SingleItemCompletion {
  readonly encoded: EncodedResponse;
  readonly outboxJson?: string;
}

/**
 * Checks what the handler queued and lays the completion out for one item.
 *
 * @throws MultiRegionUnsupportedError for staged writes or uniqueness claims (they need a transaction)
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

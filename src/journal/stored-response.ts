import { gunzipSync, gzipSync } from 'node:zlib';
import { RecordUnreadableError, ResponseNotSerializableError, ResponseTooLargeError } from '../core/index.js';
import { toJournalError, type ItemCalls } from './item-calls.js';
import type { JournalRecord } from './journal.js';
import { chunkPk, RecordAttribute, RecordKind, RecordStatus, type JournalItem } from './schema.js';

/**
 * The stored response: how a handler's outcome becomes item attributes (JSON, gzip, or chunk
 * items when it cannot fit in one item) and how a replay gets it back.
 *
 * The outcome is stored as `{"value": ...}` so `undefined` is a valid outcome, and every
 * caller gets the JSON round trip of it ({@link storedJsonForm}), the first one included.
 */

/** Responses whose JSON is larger than this are gzip-compressed before storing. */
export const COMPRESS_ABOVE_BYTES = 4 * 1024;
/** Largest encoded response kept inside the record item (DynamoDB items stop at 400 KB). */
export const INLINE_MAX_BYTES = 300 * 1024;
/** Size of one chunk item's payload when a response is split. */
export const CHUNK_BYTES = 350 * 1024;
/** Largest response JSON the journal accepts: above the 6 MB Lambda payload limit, with room for the envelope. */
export const MAX_RESPONSE_JSON_BYTES = 7 * 1024 * 1024;

/** How a stored response is laid out in DynamoDB. */
export type EncodedResponse =
  | { readonly encoding: 'json'; readonly text: string }
  | { readonly encoding: 'gzip'; readonly bytes: Uint8Array }
  | { readonly encoding: 'chunked'; readonly chunks: readonly Uint8Array[] };

/** A decoded outcome: `{ value: undefined }` is a valid, empty one. */
export type StoredValue = { value: unknown };

/**
 * Serializes a response as `{"value": ...}`, compresses it above {@link COMPRESS_ABOVE_BYTES}
 * and splits it when it cannot fit in one item.
 *
 * @throws ResponseTooLargeError above {@link MAX_RESPONSE_JSON_BYTES}; ResponseNotSerializableError for a value JSON
 *   cannot carry
 */
export function encodeResponse(value: unknown): EncodedResponse {
  const text = responseJson(value);
  if (Buffer.byteLength(text, 'utf8') <= COMPRESS_ABOVE_BYTES) return { encoding: 'json', text };
  const bytes = gzipSync(text);
  if (bytes.byteLength <= INLINE_MAX_BYTES) return { encoding: 'gzip', bytes };
  const chunks: Uint8Array[] = [];
  for (let offset = 0; offset < bytes.byteLength; offset += CHUNK_BYTES) {
    chunks.push(bytes.subarray(offset, offset + CHUNK_BYTES));
  }
  return { encoding: 'chunked', chunks };
}

/**
 * The stored JSON of a response, `{"value": ...}`, within {@link MAX_RESPONSE_JSON_BYTES}.
 *
 * @throws ResponseTooLargeError above the limit; ResponseNotSerializableError for a value JSON cannot carry
 */
export function responseJson(value: unknown): string {
  const text = wrappedJson(value);
  const jsonBytes = Buffer.byteLength(text, 'utf8');
  if (jsonBytes > MAX_RESPONSE_JSON_BYTES) throw new ResponseTooLargeError(jsonBytes);
  return text;
}

/**
 * What a replay of `value` returns: its JSON round trip (a `Date` becomes its ISO string, a
 * `Map` `{}`, `undefined` stays `undefined`), so a first caller sees what a retry will see.
 *
 * @throws ResponseNotSerializableError for a value JSON cannot carry
 * @example storedJsonForm({ at: new Date(0) }) // { at: '1970-01-01T00:00:00.000Z' }
 */
export function storedJsonForm(value: unknown): unknown {
  return (JSON.parse(wrappedJson(value)) as StoredValue).value;
}

function wrappedJson(value: unknown): string {
  try {
    return JSON.stringify({ value });
  } catch (error) {
    throw new ResponseNotSerializableError(`The result cannot be stored as JSON: ${(error as Error).message}`, {
      cause: error,
    });
  }
}

/**
 * What a replay gets from a response stored inline: the JSON text, or its gzip bytes.
 *
 * @throws RecordUnreadableError when the payload is not gzip (where it says so), not JSON, or not a stored outcome
 * @example parseStored(responseJson({ ok: true })) // { value: { ok: true } }
 */
export function parseStored(payload: string | Uint8Array, pk?: string): StoredValue {
  let parsed: unknown;
  try {
    const text = typeof payload === 'string' ? payload : gunzipSync(payload).toString('utf8');
    parsed = JSON.parse(text);
  } catch (error) {
    throw new RecordUnreadableError(pk, `its stored response does not decode (${(error as Error).message})`, {
      cause: error,
    });
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw new RecordUnreadableError(pk, 'its stored response is not a stored outcome');
  return parsed as StoredValue;
}

/** The record item's attributes holding an encoded response (inline, or the number of chunk items). */
export function responseAttributes(encoded: EncodedResponse): JournalItem {
  const { responseEncoding, response, responseChunks } = RecordAttribute;
  if (encoded.encoding === 'json') return { [responseEncoding]: 'json', [response]: encoded.text };
  if (encoded.encoding === 'gzip') return { [responseEncoding]: 'gzip', [response]: encoded.bytes };
  return { [responseEncoding]: 'chunked', [responseChunks]: encoded.chunks.length };
}

/**
 * The response an item holds inline; undefined while it holds none (in progress, `UNKNOWN`) or
 * keeps it in chunk items. A completed record always says how its response is stored.
 *
 * @throws RecordUnreadableError for a response that does not decode, an encoding the guard does not know, or a
 *   completed record without a response
 */
export function storedResponseOf(item: JournalItem, pk: string, status: string): StoredValue | undefined {
  const encoding = item[RecordAttribute.responseEncoding];
  const payload = item[RecordAttribute.response];
  if (encoding === 'json' && typeof payload === 'string') return parseStored(payload, pk);
  if (encoding === 'gzip' && payload instanceof Uint8Array) return parseStored(payload, pk);
  if (encoding === 'chunked' && Number.isInteger(item[RecordAttribute.responseChunks])) return undefined;
  if (encoding === undefined && status !== RecordStatus.completed) return undefined;
  throw new RecordUnreadableError(
    pk,
    encoding === undefined
      ? 'it is completed without a stored response'
      : `its stored response (encoding ${JSON.stringify(encoding)}) cannot be read`,
  );
}

/**
 * The chunk items of a chunked response (none for an inline one). Chunk keys carry the
 * completing lease token, so a stalled attempt's chunks never mix with the owner's.
 */
export function chunkItems(pk: string, leaseToken: string, encoded: EncodedResponse, expiresAt: number): JournalItem[] {
  if (encoded.encoding !== 'chunked') return [];
  return encoded.chunks.map((data, i) => ({ pk: chunkPk(pk, leaseToken, i), kind: RecordKind.chunk, data, expiresAt }));
}

/**
 * The chunk items of responses too large for one record item, on DynamoDB: written (batched)
 * before the fenced completion, read back in one batch when a completed record is replayed.
 */
export class ResponseChunks {
  constructor(private readonly calls: ItemCalls) {}

  /** Writes the chunk items of the response `leaseToken` is about to complete `pk` with; nothing for an inline one. */
  async write(pk: string, leaseToken: string, encoded: EncodedResponse, expiresAt: number): Promise<void> {
    const items = chunkItems(pk, leaseToken, encoded, expiresAt);
    if (items.length === 0) return;
    try {
      await this.calls.putAll('writeChunks', items);
    } catch (error) {
      throw toJournalError(error, 'writeChunks');
    }
  }

  /** The record with its response reassembled, when the item says it was chunked. */
  async attach(item: JournalItem, record: JournalRecord): Promise<JournalRecord> {
    if (item[RecordAttribute.responseEncoding] !== 'chunked') return record;
    const count = Number(item[RecordAttribute.responseChunks] ?? 0);
    const keys = Array.from({ length: count }, (_, i) => ({ pk: chunkPk(record.pk, record.leaseToken, i) }));
    const found = new Map<string, Uint8Array>();
    try {
      for (const chunk of await this.calls.getAll('readChunks', keys))
        found.set(chunk.pk as string, chunk.data as Uint8Array);
    } catch (error) {
      throw toJournalError(error, 'readChunks');
    }
    const chunks = keys.map(({ pk }) => found.get(pk));
    if (chunks.some((chunk) => !(chunk instanceof Uint8Array)))
      throw new RecordUnreadableError(record.pk, `chunks of its stored response are missing`);
    return { ...record, response: parseStored(Buffer.concat(chunks as Uint8Array[]), record.pk) };
  }
}

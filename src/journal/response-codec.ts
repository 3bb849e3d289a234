import { gunzipSync, gzipSync } from 'node:zlib';
import { ResponseNotSerializableError, ResponseTooLargeError } from '../core/index.js';

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

/**
 * Serializes a response as `{"value": ...}` (so `undefined` is a valid outcome), compresses
 * it above {@link COMPRESS_ABOVE_BYTES} and splits it when it cannot fit in one item.
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
  return (JSON.parse(wrappedJson(value)) as { value: unknown }).value;
}

function wrappedJson(value: unknown): string {
  try {
    return JSON.stringify({ value });
  } catch (error) {
    throw new ResponseNotSerializableError(`The result cannot be stored as JSON: ${(error as Error).message}`, { cause: error });
  }
}

/** Reverses {@link encodeResponse} for inline encodings. */
export function decodeInline(encoding: 'json' | 'gzip', payload: string | Uint8Array): { value: unknown } {
  const text = encoding === 'json' ? (payload as string) : gunzipSync(payload as Uint8Array).toString('utf8');
  return JSON.parse(text) as { value: unknown };
}

/** Reassembles a chunked response. */
export function decodeChunks(chunks: readonly Uint8Array[]): { value: unknown } {
  return decodeInline('gzip', Buffer.concat(chunks));
}

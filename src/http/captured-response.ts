import type { HttpResponse } from './http-response.js';

/**
 * The bytes a framework door captured, as the guard's plain response, and a plain response as
 * the status, headers and bytes a door sends: what goes into a record and what comes out of it is
 * the same whichever door wrote it (a body that is UTF-8 text is stored as text, any other as
 * base64, and replays byte for byte).
 */

/**
 * Most body bytes a door holds back while it waits to store them: the Lambda response payload
 * limit, so a door stores what a Lambda handler could return. A larger response cannot be stored
 * whole, and is refused (`response-too-large`) instead of being stored in part.
 */
export const MAX_CAPTURED_BODY_BYTES = 6 * 1024 * 1024;

// A byte-order mark is part of the bytes: it must come back on replay.
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * The body bytes of a response as a door reads them, kept whole up to {@link MAX_CAPTURED_BODY_BYTES}:
 * past that only their count goes on (the response cannot be stored whole, so none of it is kept).
 *
 * @example
 * const body = new BodyCapture();
 * for await (const chunk of stream) if (!body.add(chunk)) break;
 */
export class BodyCapture {
  /** Bytes seen so far, kept or not. */
  sizeBytes = 0;
  private readonly chunks: Buffer[] = [];

  /**
   * Keeps `chunk` (a string in `encoding`, bytes, or any other value as the JSON Lambda's response
   * stream would write for it) and returns its bytes; `undefined` once the body passed the limit.
   */
  add(chunk: unknown, encoding?: BufferEncoding): Buffer | undefined {
    const bytes = bytesOf(chunk, encoding);
    this.sizeBytes += bytes.byteLength;
    if (this.overLimit) {
      this.chunks.length = 0;
      return undefined;
    }
    this.chunks.push(bytes);
    return bytes;
  }

  /** Whether the body passed {@link MAX_CAPTURED_BODY_BYTES}. */
  get overLimit(): boolean {
    return this.sizeBytes > MAX_CAPTURED_BODY_BYTES;
  }

  /** The bytes kept (none once over the limit). */
  bytes(): Buffer {
    return Buffer.concat(this.chunks);
  }
}

function bytesOf(chunk: unknown, encoding: BufferEncoding | undefined): Buffer {
  if (typeof chunk === 'string') return Buffer.from(chunk, encoding ?? 'utf8');
  // A copy: a producer may reuse its buffer once the chunk was handed on.
  if (chunk instanceof Uint8Array) return Buffer.from(chunk);
  return Buffer.from(JSON.stringify(chunk) ?? '', 'utf8');
}

/** A header value as Node and the fetch API hand them out. */
export type HeaderValue = string | number | readonly string[] | undefined;

/**
 * The plain response of a status, headers and body bytes a door captured.
 *
 * @example capturedResponse(201, { 'content-type': 'application/json' }, Buffer.from('{}'))
 */
export function capturedResponse(
  statusCode: number,
  headers: Readonly<Record<string, HeaderValue>>,
  body: Uint8Array,
): HttpResponse {
  const single: Record<string, string> = {};
  const multi: Record<string, string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    if (typeof value === 'string' || typeof value === 'number') single[name.toLowerCase()] = String(value);
    else multi[name.toLowerCase()] = [...value];
  }
  const response: HttpResponse = { statusCode, headers: single, ...storedBody(body) };
  if (Object.keys(multi).length > 0) response.multiValueHeaders = multi;
  return response;
}

/** What a door sends for a plain response: its status, its headers (a name once, lower-case) and its bytes. */
export interface ResponseToSend {
  readonly statusCode: number;
  readonly headers: Readonly<Record<string, string | string[]>>;
  readonly body: Buffer;
}

/**
 * The status, headers and bytes of a plain response (a replay, a problem): single and
 * multi-value headers merged, HTTP API cookies as `set-cookie`, the body decoded from base64 when
 * it was stored so.
 */
export function responseToSend(response: HttpResponse): ResponseToSend {
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(response.headers ?? {})) headers[name.toLowerCase()] = String(value);
  for (const [name, values] of Object.entries(response.multiValueHeaders ?? {}))
    headers[name.toLowerCase()] = values.map(String);
  if (response.cookies?.length) headers['set-cookie'] = [...response.cookies];
  const body = Buffer.from(response.body ?? '', response.isBase64Encoded ? 'base64' : 'utf8');
  return { statusCode: response.statusCode, headers, body };
}

/**
 * The body fields of a response holding `body`: the text when it is UTF-8, else base64 with
 * `isBase64Encoded`, so it replays byte for byte.
 *
 * @example storedBody(Buffer.from([0xff])) // { body: '/w==', isBase64Encoded: true }
 */
export function storedBody(body: Uint8Array): { body: string; isBase64Encoded?: true } {
  try {
    return { body: utf8.decode(body) };
  } catch {
    return {
      body: Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('base64'),
      isBase64Encoded: true,
    };
  }
}

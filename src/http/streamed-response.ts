import { Readable } from 'node:stream';
import { ReadableStream } from 'node:stream/web';
import { ResponseTooLargeError } from '../core/index.js';
import { BodyCapture } from './captured-response.js';
import type { HttpResponse } from './http-response.js';

/**
 * Lambda response streaming (Function URLs, REST APIs with `responseTransferMode: STREAM`,
 * Middy's `streamifyResponse`): a handler answers `{ statusCode, headers, body }` whose body is a
 * Node `Readable` or a web `ReadableStream`, and Lambda sends the status and headers first, then
 * the body as it comes. The guard passes that body through to the caller while it keeps its
 * bytes ({@link StreamTee}), and decides the record only once the body ended: stored when it
 * ended normally within the limits, a failure when it errored or outgrew them.
 */

/** A body Lambda's response streaming sends as it comes: what Middy pipes to the response stream. */
export type StreamedBody = Readable | ReadableStream;

/** A handler's streamed response: the status and headers sent first, and the body stream. */
export interface StreamedResponse {
  /** The response without its body (the metadata Lambda sends before the first body byte). */
  readonly head: HttpResponse;
  readonly body: StreamedBody;
}

/**
 * How a streamed body ended, as the guard decides its record: `ended` with every byte kept, or
 * `failed` (the stream errored, or outgrew what can be stored: `ResponseTooLargeError`).
 */
export type StreamEnding =
  { readonly kind: 'ended'; readonly bytes: Buffer } | { readonly kind: 'failed'; readonly error: unknown };

/**
 * The streamed response a Middy `streamifyResponse` handler returned, or undefined for a
 * response with a buffered body. A bare stream (no status) is Lambda's default: 200, no headers.
 */
export function streamedResponseOf(result: unknown): StreamedResponse | undefined {
  if (isStreamedBody(result)) return { head: { statusCode: 200 }, body: result };
  const response = result as (HttpResponse & { body?: unknown }) | null | undefined;
  if (typeof response?.statusCode !== 'number' || !isStreamedBody(response.body)) return undefined;
  const { body, ...head } = response;
  return { head, body };
}

function isStreamedBody(value: unknown): value is StreamedBody {
  // Middy's own test: a Node readable carries `_readableState`.
  return value instanceof ReadableStream || (typeof value === 'object' && value !== null && '_readableState' in value);
}

/**
 * A response as Lambda's response stream must carry it: the body as the bytes to send (a body
 * stored as base64 decoded, since the stream's metadata has no `isBase64Encoded`), the rest as
 * the metadata prelude.
 *
 * @example streamedAnswer({ statusCode: 200, body: 'AAE=', isBase64Encoded: true }) // body: a Readable of 0x00 0x01
 */
export function streamedAnswer(
  response: HttpResponse,
): HttpResponse | (Omit<HttpResponse, 'body'> & { body: Readable }) {
  if (!response.isBase64Encoded) return response;
  const { isBase64Encoded: _encoded, body, ...head } = response;
  return { ...head, body: Readable.from([Buffer.from(body ?? '', 'base64')]) };
}

/**
 * Passes a streamed body through to the caller while keeping its bytes. {@link output} is what
 * Lambda sends: the source's bytes as they come, then its end only once `settle` (which decides
 * the record) has answered, so a retry that follows the whole answer finds it stored. When
 * `settle` answers with an error, the output ends with it instead: the caller has a broken
 * response, never one the record does not stand behind.
 *
 * A caller that goes away is not a failure: when the output is destroyed, the source is still read
 * to its end, and its outcome stored. A source that outgrows {@link BodyCapture}'s limit is
 * stopped there (not one byte more is sent) and ends as `failed` with `ResponseTooLargeError`.
 */
export class StreamTee {
  /** The body to hand Lambda's response stream. */
  readonly output: Readable;
  /** Resolves once the record is decided (whether the caller stayed or not). */
  readonly settled: Promise<void>;
  private wake: (() => void) | undefined;

  constructor(
    source: StreamedBody,
    private readonly settle: (ending: StreamEnding) => Promise<Error | undefined>,
  ) {
    // Object mode forwards each chunk as the source gave it, an empty one too: Lambda's response stream writes
    // the metadata prelude on its first write, whatever that write holds.
    this.output = new Readable({
      objectMode: true,
      read: () => this.resume(),
      destroy: (error, callback) => {
        this.resume();
        callback(error);
      },
    });
    this.settled = this.pump(source);
  }

  private async pump(source: StreamedBody): Promise<void> {
    const capture = new BodyCapture();
    let ending: StreamEnding | undefined;
    try {
      for await (const chunk of source as AsyncIterable<unknown>) {
        const bytes = capture.add(chunk);
        if (!bytes) {
          // Leaving the loop stops the source: it is not read past what can be stored.
          ending = { kind: 'failed', error: new ResponseTooLargeError(capture.sizeBytes) };
          break;
        }
        await this.forward(bytes);
      }
      ending ??= { kind: 'ended', bytes: capture.bytes() };
    } catch (error) {
      ending = { kind: 'failed', error };
    }
    // The settlement answers its failures; one it did not foresee still ends the caller's body, never the process.
    const refused = await this.settle(ending).catch((error: unknown) =>
      error instanceof Error ? error : new Error(String(error)),
    );
    if (this.output.destroyed) return;
    if (refused) this.output.destroy(refused);
    else this.output.push(null);
  }

  /** Sends `bytes` on when the caller is still there, waiting while it reads slower than the source. */
  private async forward(bytes: Buffer): Promise<void> {
    if (this.output.destroyed) return;
    if (!this.output.push(bytes)) await new Promise<void>((resolve) => (this.wake = resolve));
  }

  private resume(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }
}

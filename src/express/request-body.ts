import type { IncomingMessage } from 'node:http';
import { RequestInvalidError } from '../core/index.js';

/** Most request body bytes the guard reads to fingerprint a request: the Lambda request payload limit. */
export const MAX_READ_BODY_BYTES = 6 * 1024 * 1024;

/** An Express request as the guard reads its body: a body parser may have run before it. */
export interface BodySource extends IncomingMessage {
  /** What a body parser made of the body (`express.json()`, `express.raw()`, `express.text()`), if one ran. */
  body?: unknown;
  /** The raw bytes a body parser's `verify` kept (`req.rawBody = buf`), if any. */
  rawBody?: unknown;
}

/**
 * The body of an Express request, for its fingerprint: its bytes when the guard can have them
 * (the stream not yet read, which the guard reads and puts back for the body parser after it;
 * `express.raw()` or `express.text()`; a `rawBody` a parser's `verify` kept), else the value a JSON
 * body parser made of it.
 *
 * @throws RequestInvalidError when a body was read before the guard and nothing of it was kept, or it is too large
 */
export async function requestBodyOf(req: BodySource): Promise<unknown> {
  if (!hasBody(req)) return undefined;
  if (!req.readableDidRead && !req.readableEnded) return readAndPutBack(req, MAX_READ_BODY_BYTES);
  if (isBytesOrText(req.body)) return req.body;
  if (isBytesOrText(req.rawBody)) return req.rawBody;
  if (req.body !== undefined) return req.body;
  throw new RequestInvalidError(
    'The body was read before the idempotency guard and not kept: put the guard before the body parser, or keep req.rawBody',
  );
}

/** Whether the request carries a body, as body parsers decide it (`transfer-encoding`, or a non-zero `content-length`). */
function hasBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

function isBytesOrText(value: unknown): value is Uint8Array | string {
  return value instanceof Uint8Array || typeof value === 'string';
}

/**
 * Reads the whole body, then puts it back in front of the stream before it ends, so a body
 * parser after the guard reads the same bytes as if nothing had read them.
 */
function readAndPutBack(req: IncomingMessage, maxBytes: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let sizeBytes = 0;
    const done = (error?: unknown) => {
      req.off('readable', onReadable);
      req.off('error', done);
      req.off('end', onEnd);
      if (error !== undefined) return reject(error);
      const body = Buffer.concat(chunks);
      // Put back before the stream can say it ended: the parser after the guard then reads it all.
      if (body.byteLength > 0) req.unshift(body);
      resolve(body);
    };
    const onEnd = () => done(new RequestInvalidError('The request body ended before the guard could read it'));
    const onReadable = () => {
      let chunk: Buffer | null;
      while ((chunk = req.read() as Buffer | null) !== null) {
        chunks.push(chunk);
        sizeBytes += chunk.byteLength;
        if (sizeBytes > maxBytes)
          return done(new RequestInvalidError(`The request body is larger than ${maxBytes} bytes`));
      }
      // The parser has the whole message and nothing is left buffered: every byte is read.
      if (req.complete && req.readableLength === 0) done();
    };
    req.on('readable', onReadable);
    req.on('error', done);
    req.on('end', onEnd);
  });
}

import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { BodyCapture, capturedResponse, OversizedResponse, responseToSend, type HttpResponse } from '../http/index.js';

/** The methods through which a Node response reaches the socket: held back while the guard stores the outcome. */
const HELD = ['writeHead', 'write', 'end', 'flushHeaders'] as const;

type Callback = (error?: Error | null) => void;

/**
 * Holds back what a handler sends on a Node `ServerResponse` (`res.json`, `res.send`, a stream
 * piped into it: all go through `writeHead`, `write` and `end`) until the guard has stored it,
 * then sends it, or another answer instead. The bytes are captured whole up to
 * the capture limit of {@link BodyCapture}; past that the capture stops keeping them and the response ends
 * as an {@link OversizedResponse}, which the guard refuses instead of storing it in part.
 */
export class ResponseCapture {
  /** The response the handler sent, once it ended it. */
  readonly ended: Promise<HttpResponse>;
  private readonly body = new BodyCapture();
  private finished = false;
  private readonly saved: ReadonlyMap<string, PropertyDescriptor | undefined>;
  private readonly headersBefore: OutgoingHttpHeaders;
  private resolveEnded!: (response: HttpResponse) => void;

  constructor(private readonly res: ServerResponse) {
    this.saved = new Map(HELD.map((name) => [name, Object.getOwnPropertyDescriptor(res, name)]));
    // What middleware before the guard set (CORS, say) is part of every answer, a replay's too.
    this.headersBefore = { ...res.getHeaders() };
    this.ended = new Promise((resolve) => (this.resolveEnded = resolve));
    Object.assign(res, {
      writeHead: (statusCode: number, reason?: unknown, headers?: unknown) => {
        this.writeHead(statusCode, reason, headers);
        return res;
      },
      write: (chunk: unknown, encoding?: unknown, callback?: unknown) => {
        this.keep(chunk, encoding);
        later(typeof encoding === 'function' ? encoding : callback);
        return true;
      },
      end: (chunk?: unknown, encoding?: unknown, callback?: unknown) => {
        if (typeof chunk === 'function') return this.end(undefined, undefined, chunk as Callback);
        return this.end(chunk, encoding, typeof encoding === 'function' ? encoding : callback);
      },
      flushHeaders: () => undefined,
    });
  }

  /** Sends what the handler sent, as it sent it. */
  sendOwn(): void {
    this.release();
    this.res.end(this.body.bytes());
  }

  /** Sends `response` instead (a replay, a problem, another attempt's outcome) over the headers set before the guard. */
  sendAnswer(response: HttpResponse): void {
    this.release();
    const { res } = this;
    for (const name of res.getHeaderNames()) res.removeHeader(name);
    for (const [name, value] of Object.entries(this.headersBefore)) if (value !== undefined) res.setHeader(name, value);
    const { statusCode, headers, body } = responseToSend(response);
    res.statusCode = statusCode;
    if (response.statusDescription !== undefined) res.statusMessage = response.statusDescription;
    for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
    res.end(body);
  }

  /** Gives the response its own methods back. */
  release(): void {
    for (const [name, descriptor] of this.saved) {
      if (descriptor) Object.defineProperty(this.res, name, descriptor);
      else delete (this.res as unknown as Record<string, unknown>)[name];
    }
  }

  private writeHead(statusCode: number, reason: unknown, headers: unknown): void {
    const { res } = this;
    res.statusCode = statusCode;
    if (typeof reason === 'string') res.statusMessage = reason;
    const given = typeof reason === 'string' ? headers : reason;
    if (Array.isArray(given)) {
      for (let i = 0; i + 1 < given.length; i += 2) res.appendHeader(String(given[i]), given[i + 1] as string);
    } else if (given && typeof given === 'object') {
      for (const [name, value] of Object.entries(given)) if (value !== undefined) res.setHeader(name, value as string);
    }
  }

  private end(chunk: unknown, encoding: unknown, callback: unknown): ServerResponse {
    this.keep(chunk, encoding);
    if (!this.finished) {
      this.finished = true;
      const { statusCode } = this.res;
      this.resolveEnded(
        this.body.overLimit
          ? new OversizedResponse(statusCode, this.body.sizeBytes)
          : capturedResponse(statusCode, this.res.getHeaders(), this.body.bytes()),
      );
    }
    later(callback);
    return this.res;
  }

  private keep(chunk: unknown, encoding: unknown): void {
    if (this.finished || chunk === undefined || chunk === null || typeof chunk === 'function') return;
    this.body.add(chunk, typeof encoding === 'string' ? (encoding as BufferEncoding) : undefined);
  }
}

function later(callback: unknown): void {
  if (typeof callback === 'function') process.nextTick(callback as Callback);
}

import { Writable } from 'node:stream';

/**
 * A local stand-in for what Lambda's Node.js runtime provides to a response-streaming function:
 * the `awslambda` global (`streamifyResponse`, `HttpResponseStream.from`) and the invocation that
 * hands the handler a response stream and reads what it wrote. It follows the runtime interface
 * client (`aws-lambda-nodejs-runtime-interface-client`): the response stream is a writable with
 * `setContentType`, `HttpResponseStream.from` writes the JSON metadata prelude and eight NUL bytes
 * before the first body bytes, a handler that rejects has its stream failed (the error travels as
 * trailers), and a handler that resolves before ending its stream is an error. As in Lambda, a
 * caller that goes away is not visible to the function: its writes keep being accepted.
 */

/** The content type `HttpResponseStream.from` gives the stream: a JSON prelude, 8 NUL bytes, then the body. */
export const HTTP_INTEGRATION_CONTENT_TYPE = 'application/vnd.awslambda.http-integration-response';
const DEFAULT_CONTENT_TYPE = 'application/octet-stream';
const DELIMITER_BYTES = 8;
/** Where `streamifyResponse` marks a handler, as the runtime does. */
const STREAMING = Symbol.for('aws.lambda.runtime.handler.streaming');

/** The metadata prelude of an HTTP response streamed through a Function URL or a REST API `STREAM` integration. */
export interface StreamedHttpPrelude {
  readonly statusCode?: number;
  readonly headers?: Record<string, string>;
  readonly multiValueHeaders?: Record<string, string[]>;
  readonly cookies?: string[];
  readonly [name: string]: unknown;
}

/** The response stream a streaming handler is given: the writable subset of the runtime's own. */
export interface LambdaResponseStream {
  /** Writes body bytes (a value that is neither a string nor bytes is written as its JSON). */
  write(chunk: unknown, encoding?: BufferEncoding | ((error?: Error | null) => void), callback?: () => void): boolean;
  /** Ends the response. */
  end(chunk?: unknown, encoding?: BufferEncoding | (() => void), callback?: () => void): this;
  /** Breaks the response off. */
  destroy(error?: Error): this;
  /** Listens to the writable's events (`finish`, `close`, `error`, `drain`). */
  on(event: string, listener: (...args: any[]) => void): this;
  /** Listens to one of the writable's events once. */
  once(event: string, listener: (...args: any[]) => void): this;
  /** @throws Error once the first byte was written */
  setContentType(contentType: string): void;
  readonly writableFinished: boolean;
  readonly destroyed: boolean;
}

/** A handler `awslambda.streamifyResponse` accepts. */
export type StreamingHandler<E = any, C = any> = (
  event: E,
  responseStream: LambdaResponseStream,
  context: C,
) => unknown;

/** The `awslambda` global of a Lambda Node.js runtime, as far as response streaming goes. */
export interface AwsLambdaStreamingGlobal {
  /** Marks `handler` as one that streams its response, and returns it. */
  streamifyResponse<H extends StreamingHandler>(handler: H, options?: { highWaterMark?: number }): H;
  readonly HttpResponseStream: {
    /** Makes `responseStream` send `prelude` (status, headers, cookies) as JSON and eight NUL bytes before its first byte. */
    from(responseStream: LambdaResponseStream, prelude: Record<string, unknown>): LambdaResponseStream;
  };
}

/**
 * Installs the `awslambda` global as Lambda's Node.js runtime provides it, for tests of handlers
 * built with Middy's `streamifyResponse: true` (which reads the global when `middy()` is called,
 * so install it first). Returns the function that puts back what was there before.
 *
 * @example
 * const uninstall = installLambdaStreaming();
 * const handler = middy({ streamifyResponse: true }).use(httpIdempotency({ journal })).handler(streamReport);
 * const answer = await invokeStreaming(handler, functionUrlEvent({ idempotencyKey: 'k-1' }), lambdaContext());
 * uninstall();
 */
export function installLambdaStreaming(): () => void {
  const target = globalThis as { awslambda?: Record<string, unknown> };
  // Other code shares the global (the AWS SDK keeps its invoke store there): add to it, as the runtime's own does.
  const existing = target.awslambda;
  const global = existing ?? {};
  const before = { streamifyResponse: global.streamifyResponse, HttpResponseStream: global.HttpResponseStream };
  Object.assign(global, awslambdaStandIn);
  target.awslambda = global;
  return () => {
    for (const [name, value] of Object.entries(before)) {
      if (value === undefined) delete global[name];
      else global[name] = value;
    }
    if (existing === undefined && Object.keys(global).length === 0) delete target.awslambda;
  };
}

/** The `awslambda` object {@link installLambdaStreaming} installs. */
export const awslambdaStandIn: AwsLambdaStreamingGlobal = Object.freeze({
  streamifyResponse<H extends StreamingHandler>(handler: H): H {
    (handler as unknown as Record<symbol, unknown>)[STREAMING] = 'response';
    return handler;
  },
  HttpResponseStream: Object.freeze({
    from(responseStream: LambdaResponseStream, prelude: Record<string, unknown>): LambdaResponseStream {
      responseStream.setContentType(HTTP_INTEGRATION_CONTENT_TYPE);
      // The runtime's JSON.stringify: a NUL can never appear in the prelude, so the delimiter is unambiguous.
      const text = JSON.stringify(prelude);
      (responseStream as ResponseStreamHooks)._onBeforeFirstWrite = (write) => {
        write(text);
        write(new Uint8Array(DELIMITER_BYTES));
      };
      return responseStream;
    },
  }),
});

/** Options of {@link invokeStreaming}. */
export interface InvokeStreamingOptions {
  /**
   * The caller goes away after receiving this many body bytes. As in Lambda, the function is
   * not told: its writes keep being accepted, and {@link StreamedInvocation.received} stops there.
   * @default undefined (the caller stays to the end)
   */
  readonly callerLeavesAfterBytes?: number;
}

/** What a streaming invocation sent, as the runtime read it. */
export interface StreamedInvocation {
  /** The content type of the stream (the HTTP integration's when the handler sent a prelude). */
  readonly contentType: string;
  /** The metadata prelude (status, headers, cookies), when the handler used `HttpResponseStream.from`. */
  readonly prelude?: StreamedHttpPrelude | undefined;
  /** The body bytes the function wrote, after the prelude and its delimiter. */
  readonly body: Buffer;
  /** The body bytes the caller received: all of {@link body}, unless it went away first. */
  readonly received: Buffer;
  /** How many writes carried body bytes (a stream of many chunks stays many). */
  readonly bodyWrites: number;
  /** The invocation's error, as the runtime reports it in the stream's trailers; absent when it succeeded. */
  readonly error?: { readonly errorType: string; readonly errorMessage: string };
}

/**
 * Invokes a handler made with `awslambda.streamifyResponse` the way the runtime does: gives it a
 * fresh response stream, awaits it, fails the stream with the handler's error when it rejects,
 * and reads back the prelude and body it wrote.
 *
 * @throws Error for a handler `streamifyResponse` did not mark (the runtime would not stream it)
 * @example
 * const { prelude, body } = await invokeStreaming(handler, functionUrlEvent({ idempotencyKey: 'k' }), lambdaContext());
 */
export async function invokeStreaming(
  handler: (...args: any[]) => unknown,
  event: unknown,
  context: unknown,
  options: InvokeStreamingOptions = {},
): Promise<StreamedInvocation> {
  if ((handler as unknown as Record<symbol, unknown>)[STREAMING] !== 'response')
    throw new Error('The handler is not wrapped with awslambda.streamifyResponse');
  const sink = new ResponseSink();
  let error: StreamedInvocation['error'];
  try {
    const result = handler(event, sink.exposed(), context);
    if (!isPromise(result)) throw new Error('Streaming does not support non-async handlers.');
    await result;
    // The runtime would wait for the stream until the deadline; a test is told at once.
    if (!sink.writableEnded && !sink.destroyed) throw new Error('Response stream is not finished.');
    await sink.settled();
  } catch (failure) {
    const thrown = failure instanceof Error ? failure : new Error(String(failure));
    error = { errorType: thrown.name, errorMessage: thrown.message };
  }
  return sink.readBack(error, options.callerLeavesAfterBytes);
}

type ResponseStreamHooks = { _onBeforeFirstWrite?: (write: (chunk: unknown) => void) => void };

/** The runtime's side of the response stream: what the function wrote, in order. */
class ResponseSink extends Writable {
  private readonly writes: Buffer[] = [];
  private contentType = DEFAULT_CONTENT_TYPE;
  private written = false;
  _onBeforeFirstWrite?: (write: (chunk: unknown) => void) => void;

  setContentType(contentType: string): void {
    if (this.written) throw new Error('Cannot set content-type, too late.');
    this.contentType = contentType;
  }

  override write(chunk: unknown, encoding?: unknown, callback?: unknown): boolean {
    const data =
      typeof chunk === 'string' || Buffer.isBuffer(chunk) || chunk instanceof Uint8Array
        ? chunk
        : JSON.stringify(chunk);
    if (!this.written && typeof this._onBeforeFirstWrite === 'function')
      this._onBeforeFirstWrite((prelude) => super.write(prelude));
    this.written = true;
    return super.write(data, encoding as BufferEncoding, callback as () => void);
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    this.writes.push(Buffer.from(chunk));
    callback();
  }

  /** The writable subset the runtime hands the handler (no `pipe`, no internals). */
  exposed(): LambdaResponseStream {
    const methods = ['write', 'end', 'destroy', 'cork', 'uncork', 'setContentType'] as const;
    const events = [
      'addListener',
      'on',
      'once',
      'prependListener',
      'prependOnceListener',
      'off',
      'removeListener',
      'removeAllListeners',
      'setMaxListeners',
      'getMaxListeners',
      'listeners',
      'rawListeners',
      'listenerCount',
      'eventNames',
      'emit',
    ] as const;
    const stream: Record<string, unknown> = {};
    for (const name of [...methods, ...events]) {
      const method = (this as unknown as Record<string, (...args: unknown[]) => unknown>)[name]!;
      stream[name] = (...args: unknown[]) => {
        const result = method.apply(this, args);
        return result === this ? stream : result;
      };
    }
    for (const name of ['destroyed', '_onBeforeFirstWrite'] as const)
      Object.defineProperty(stream, name, {
        get: () => this[name],
        set: (value) => ((this as Record<string, unknown>)[name] = value),
      });
    const readOnly = [
      'writable',
      'writableFinished',
      'writableEnded',
      'writableNeedDrain',
      'writableLength',
      'writableHighWaterMark',
      'writableObjectMode',
      'writableCorked',
    ] as const;
    for (const name of readOnly) Object.defineProperty(stream, name, { get: () => this[name] });
    return stream as unknown as LambdaResponseStream;
  }

  /** Resolves once the stream ended or was destroyed (the runtime waits for its request to close). */
  settled(): Promise<void> {
    if (this.writableFinished || this.destroyed) return Promise.resolve();
    return new Promise((resolve) => {
      this.once('finish', resolve);
      this.once('close', resolve);
    });
  }

  readBack(error: StreamedInvocation['error'], callerLeavesAfterBytes: number | undefined): StreamedInvocation {
    const all = Buffer.concat(this.writes);
    let prelude: StreamedHttpPrelude | undefined;
    let body = all;
    let preludeWrites = 0;
    if (this.contentType === HTTP_INTEGRATION_CONTENT_TYPE && all.length > 0) {
      const end = all.indexOf(Buffer.alloc(DELIMITER_BYTES));
      if (end < 0) throw new Error('The stream carries no metadata prelude delimiter');
      prelude = JSON.parse(all.subarray(0, end).toString('utf8')) as StreamedHttpPrelude;
      body = all.subarray(end + DELIMITER_BYTES);
      preludeWrites = 2;
    }
    const received = callerLeavesAfterBytes === undefined ? body : body.subarray(0, callerLeavesAfterBytes);
    const bodyWrites = this.writes.filter((write) => write.length > 0).length - preludeWrites;
    return { contentType: this.contentType, prelude, body, received, bodyWrites, ...(error ? { error } : {}) };
  }
}

function isPromise(value: unknown): value is Promise<unknown> {
  return typeof (value as Promise<unknown> | null)?.then === 'function';
}

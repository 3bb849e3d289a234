import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import {
  HTTP_INTEGRATION_CONTENT_TYPE,
  installLambdaStreaming,
  invokeStreaming,
  type AwsLambdaStreamingGlobal,
  type LambdaResponseStream,
} from '../../../src/testing/index.js';

const lambda = () => (globalThis as unknown as { awslambda: AwsLambdaStreamingGlobal }).awslambda;

describe('installLambdaStreaming and invokeStreaming: the Lambda Node.js runtime stand-in', () => {
  let uninstall: () => void;
  beforeEach(() => (uninstall = installLambdaStreaming()));
  afterEach(() => uninstall());

  it('sends the HTTP metadata prelude as JSON and 8 NUL bytes before the first body byte', async () => {
    const handler = lambda().streamifyResponse(async (_event: unknown, stream: LambdaResponseStream) => {
      const http = lambda().HttpResponseStream.from(stream, { statusCode: 201, headers: { 'x-a': '1' } });
      await pipeline(Readable.from(['ab', 'cd']), http as never);
    });

    const answer = await invokeStreaming(handler, {}, {});

    expect(answer.contentType).toBe(HTTP_INTEGRATION_CONTENT_TYPE);
    expect(answer.prelude).toEqual({ statusCode: 201, headers: { 'x-a': '1' } });
    expect(answer.body.toString()).toBe('abcd');
    expect(answer.bodyWrites).toBe(2);
  });

  it('sends a stream without a prelude as raw bytes of application/octet-stream', async () => {
    const handler = lambda().streamifyResponse(async (_event: unknown, stream: LambdaResponseStream) => {
      stream.write(Buffer.from([0, 1]));
      stream.end();
    });

    const answer = await invokeStreaming(handler, {}, {});

    expect(answer.contentType).toBe('application/octet-stream');
    expect(answer.prelude).toBeUndefined();
    expect([...answer.body]).toEqual([0, 1]);
  });

  it('refuses to set the content type once a byte was written, as the runtime does', async () => {
    let refused: unknown;
    const handler = lambda().streamifyResponse(async (_event: unknown, stream: LambdaResponseStream) => {
      stream.write('x');
      try {
        stream.setContentType('text/plain');
      } catch (error) {
        refused = error;
      }
      stream.end();
    });

    await invokeStreaming(handler, {}, {});

    expect(String(refused)).toMatch(/too late/);
  });

  it('reports a handler that rejects as the invocation error, with the bytes written before it', async () => {
    const handler = lambda().streamifyResponse(async (_event: unknown, stream: LambdaResponseStream) => {
      stream.write('partial');
      throw new TypeError('boom');
    });

    const answer = await invokeStreaming(handler, {}, {});

    expect(answer.error).toEqual({ errorType: 'TypeError', errorMessage: 'boom' });
    expect(answer.body.toString()).toBe('partial');
  });

  it('reports a handler that resolves before ending its stream', async () => {
    const handler = lambda().streamifyResponse(async (_event: unknown, stream: LambdaResponseStream) => {
      stream.write('partial');
    });

    const answer = await invokeStreaming(handler, {}, {});

    expect(answer.error?.errorMessage).toBe('Response stream is not finished.');
  });

  it('does not tell the function that the caller went away: its writes are still accepted', async () => {
    let accepted = 0;
    const handler = lambda().streamifyResponse(async (_event: unknown, stream: LambdaResponseStream) => {
      for (const part of ['abc', 'def', 'ghi']) if (stream.write(part) !== undefined) accepted++;
      stream.end();
    });

    const answer = await invokeStreaming(handler, {}, {}, { callerLeavesAfterBytes: 4 });

    expect(accepted).toBe(3);
    expect(answer.error).toBeUndefined();
    expect(answer.received.toString()).toBe('abcd');
    expect(answer.body.toString()).toBe('abcdefghi');
  });

  it('refuses a handler that streamifyResponse did not mark', async () => {
    await expect(invokeStreaming(async () => undefined, {}, {})).rejects.toThrow(/streamifyResponse/);
  });

  it('puts the global back as it was', () => {
    uninstall();
    const before = (globalThis as { awslambda?: Record<string, unknown> }).awslambda;
    expect(before?.streamifyResponse).toBeUndefined();
    uninstall = installLambdaStreaming();
    expect(typeof lambda().streamifyResponse).toBe('function');
  });
});

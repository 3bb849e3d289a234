import { GetItemCommand, ScanCommand } from '@aws-sdk/client-dynamodb';
import middy from '@middy/core';
import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { ReadableStream } from 'node:stream/web';
import { setTimeout as sleep } from 'node:timers/promises';
import { httpIdempotency, idempotencyOf, type HttpIdempotencyOptions } from '../../src/index.js';
import type { Journal } from '../../src/entries/journal.js';
import {
  functionUrlEvent,
  installLambdaStreaming,
  invokeStreaming,
  restApiEvent,
  type InvokeStreamingOptions,
  type StreamedInvocation,
} from '../../src/testing/index.js';
import { injectFault } from '../faults/support/fault-injection.js';
import { createTable, dynamoJournal } from '../support/dynamodb.js';
import { lambdaContext } from '../support/lambda.js';

const MB = 1024 * 1024;
const body = { report: 'q3', rows: 3 };

let uninstall: () => void;
beforeAll(() => {
  // Middy reads the global when middy() is called.
  uninstall = installLambdaStreaming();
});
afterAll(() => uninstall());

type Handler = (event: any, context: any) => Promise<unknown>;

/** A Middy `streamifyResponse` handler guarded by httpIdempotency, invoked as Lambda's runtime streams it. */
function streamingGuard(handler: Handler, journal: Journal, options: Partial<HttpIdempotencyOptions> = {}) {
  const wrapped = middy(handler, { streamifyResponse: true }).use(
    httpIdempotency({ journal, streamifyResponse: true, ...options }),
  );
  return (event: unknown, invoke: InvokeStreamingOptions = {}) =>
    invokeStreaming(wrapped as unknown as Handler, event, lambdaContext(), invoke);
}

/** A handler answering 201 with a body streamed in `chunks`, counting its runs. */
function reportHandler(chunks: readonly (string | Buffer)[]) {
  const runs: number[] = [];
  const handler = async () => {
    runs.push(runs.length + 1);
    return {
      statusCode: 201,
      headers: { 'content-type': 'text/csv', location: `/reports/r_${runs.length}`, 'x-trace': 'not-stored' },
      body: Readable.from(chunks),
    };
  };
  return { runs, handler };
}

function problemOf(answer: StreamedInvocation): { type: string; status: number } {
  return JSON.parse(answer.body.toString('utf8'));
}

const chunks = ['id,amount\n', 'r1,10\n', 'r2,20\n', 'r3,30\n'];

describe('httpIdempotency under Lambda response streaming (Middy streamifyResponse) on DynamoDB Local', () => {
  it.each([
    ['a Function URL', functionUrlEvent],
    ['a REST API with responseTransferMode STREAM', restApiEvent],
  ])('streams the first answer through %s, stores it, and replays it as a stream', async (_door, eventOf) => {
    const { journal } = await dynamoJournal();
    const { runs, handler } = reportHandler(chunks);
    const event = eventOf({ path: '/reports', idempotencyKey: 'stream-1', body });

    const first = await streamingGuard(handler, journal)(event);
    const replay = await streamingGuard(handler, journal)(event);

    expect(first.error).toBeUndefined();
    expect(first.prelude).toMatchObject({ statusCode: 201, headers: { location: '/reports/r_1' } });
    expect(first.body.toString()).toBe(chunks.join(''));
    expect(first.bodyWrites).toBe(chunks.length);
    expect(replay.error).toBeUndefined();
    expect(replay.prelude).toEqual({
      statusCode: 201,
      headers: { 'content-type': 'text/csv', location: '/reports/r_1', 'Idempotent-Replayed': 'true' },
    });
    expect(replay.body.equals(first.body)).toBe(true);
    expect(runs).toHaveLength(1);
  });

  it('replays a large binary stream byte for byte from the chunk items it is stored in', async () => {
    const { journal, client, tableName } = await dynamoJournal();
    // Random bytes do not compress: their record needs chunk items.
    const bytes = randomBytes(2 * MB);
    const parts = Array.from({ length: 32 }, (_, i) => bytes.subarray(i * 64 * 1024, (i + 1) * 64 * 1024));
    const { runs, handler } = reportHandler(parts);
    const event = functionUrlEvent({ path: '/exports', idempotencyKey: 'large-1', body });

    const first = await streamingGuard(handler, journal)(event);
    const replay = await streamingGuard(handler, journal)(event);

    const items = await client.send(new ScanCommand({ TableName: tableName }));
    expect(items.Items?.filter((item) => item.kind?.S === 'chunk').length).toBeGreaterThan(1);
    expect(first.body.equals(bytes)).toBe(true);
    expect(replay.prelude?.headers?.['Idempotent-Replayed']).toBe('true');
    expect(replay.prelude).not.toHaveProperty('isBase64Encoded');
    expect(replay.body.equals(bytes)).toBe(true);
    expect(runs).toHaveLength(1);
  }, 60_000);

  it('streams and replays a web ReadableStream body', async () => {
    const { journal } = await dynamoJournal();
    let runs = 0;
    const handler = async () => {
      runs++;
      const encoder = new TextEncoder();
      return {
        statusCode: 200,
        headers: { 'content-type': 'text/plain' },
        body: new ReadableStream({
          start(controller) {
            for (const part of ['one ', 'two ', 'three']) controller.enqueue(encoder.encode(part));
            controller.close();
          },
        }),
      };
    };
    const event = functionUrlEvent({ idempotencyKey: 'web-1', body });

    const first = await streamingGuard(handler, journal)(event);
    const replay = await streamingGuard(handler, journal)(event);

    expect(first.body.toString()).toBe('one two three');
    expect(replay.body.toString()).toBe('one two three');
    expect(runs).toBe(1);
  });

  it('stores and replays a string body under streamifyResponse', async () => {
    const { journal } = await dynamoJournal();
    let runs = 0;
    const handler = async () => {
      runs++;
      return { statusCode: 201, headers: { 'content-type': 'application/json' }, body: '{"id":"o_1"}' };
    };
    const event = functionUrlEvent({ idempotencyKey: 'string-1', body });

    const first = await streamingGuard(handler, journal)(event);
    const replay = await streamingGuard(handler, journal)(event);

    expect(first.prelude?.statusCode).toBe(201);
    expect(first.body.toString()).toBe('{"id":"o_1"}');
    expect(replay.prelude?.headers?.['Idempotent-Replayed']).toBe('true');
    expect(replay.body.toString()).toBe('{"id":"o_1"}');
    expect(runs).toBe(1);
  });

  it('releases the key when the stream errors before beginEffect: the retry runs again', async () => {
    const { journal } = await dynamoJournal();
    let runs = 0;
    const handler = async () => {
      runs++;
      const failing = runs === 1;
      async function* rows() {
        yield 'r1,10\n';
        if (failing) throw new Error('upstream reset');
        yield 'r2,20\n';
      }
      return { statusCode: 201, headers: { 'content-type': 'text/csv' }, body: Readable.from(rows()) };
    };
    const event = functionUrlEvent({ idempotencyKey: 'error-before-1', body });

    const first = await streamingGuard(handler, journal)(event);
    const retry = await streamingGuard(handler, journal)(event);

    expect(first.error?.errorMessage).toBe('upstream reset');
    expect(retry.error).toBeUndefined();
    expect(retry.prelude?.statusCode).toBe(201);
    expect(retry.prelude?.headers?.['Idempotent-Replayed']).toBeUndefined();
    expect(retry.body.toString()).toBe('r1,10\nr2,20\n');
    expect(runs).toBe(2);
  });

  it('holds the key for review when the stream errors after beginEffect: the retry gets 409 needs-review', async () => {
    const { journal } = await dynamoJournal();
    let runs = 0;
    const handler = async (_event: unknown, context: unknown) => {
      runs++;
      async function* rows() {
        yield 'r1,10\n';
        await idempotencyOf(context as never).beginEffect();
        throw new Error('connection lost after the transfer began');
      }
      return { statusCode: 201, headers: { 'content-type': 'text/csv' }, body: Readable.from(rows()) };
    };
    const event = functionUrlEvent({ idempotencyKey: 'error-after-1', body });

    const first = await streamingGuard(handler, journal)(event);
    const retry = await streamingGuard(handler, journal)(event);

    expect(first.error?.errorMessage).toBe('connection lost after the transfer began');
    expect(retry.prelude).toMatchObject({
      statusCode: 409,
      headers: { 'content-type': 'application/problem+json' },
    });
    expect(problemOf(retry).type).toBe('urn:idemkit:problem:needs-review');
    expect(runs).toBe(1);
  });

  it('passes a streamed 5xx through untouched and releases the key: the retry runs again', async () => {
    const { journal } = await dynamoJournal();
    let runs = 0;
    const handler = async () => {
      runs++;
      const statusCode = runs === 1 ? 503 : 201;
      return { statusCode, headers: { 'content-type': 'text/plain' }, body: Readable.from([`run ${runs}`]) };
    };
    const event = functionUrlEvent({ idempotencyKey: 'unavailable-1', body });

    const first = await streamingGuard(handler, journal)(event);
    const retry = await streamingGuard(handler, journal)(event);

    expect(first.prelude?.statusCode).toBe(503);
    expect(first.body.toString()).toBe('run 1');
    expect(retry.prelude?.statusCode).toBe(201);
    expect(retry.body.toString()).toBe('run 2');
    expect(runs).toBe(2);
  });

  it('stores the outcome when the caller goes away mid-stream: the retry replays the whole body', async () => {
    const { journal } = await dynamoJournal();
    const { runs, handler } = reportHandler(chunks);
    const event = functionUrlEvent({ idempotencyKey: 'gone-1', body });

    const first = await streamingGuard(handler, journal)(event, { callerLeavesAfterBytes: 12 });
    const retry = await streamingGuard(handler, journal)(event);

    expect(first.received.toString()).toBe(chunks.join('').slice(0, 12));
    expect(first.error).toBeUndefined();
    expect(retry.prelude?.headers?.['Idempotent-Replayed']).toBe('true');
    expect(retry.body.toString()).toBe(chunks.join(''));
    expect(runs).toHaveLength(1);
  });

  it('answers 409 request-in-progress through the stream while the first answer is still streaming', async () => {
    const { journal } = await dynamoJournal();
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    const handler = async () => {
      async function* rows() {
        yield 'r1,10\n';
        await gate;
        yield 'r2,20\n';
      }
      return { statusCode: 201, headers: { 'content-type': 'text/csv' }, body: Readable.from(rows()) };
    };
    const event = functionUrlEvent({ idempotencyKey: 'busy-1', body });

    const first = streamingGuard(handler, journal)(event);
    await sleep(200);
    const concurrent = await streamingGuard(handler, journal)(event);
    open();
    const done = await first;

    expect(concurrent.prelude).toMatchObject({ statusCode: 409, headers: { 'retry-after': expect.any(String) } });
    expect(problemOf(concurrent).type).toBe('urn:idemkit:problem:request-in-progress');
    expect(done.body.toString()).toBe('r1,10\nr2,20\n');
  });

  it('answers 422 through the stream to a key reused with another request', async () => {
    const { journal } = await dynamoJournal();
    const { runs, handler } = reportHandler(chunks);

    await streamingGuard(handler, journal)(functionUrlEvent({ idempotencyKey: 'reuse-1', body }));
    const reused = await streamingGuard(
      handler,
      journal,
    )(functionUrlEvent({ idempotencyKey: 'reuse-1', body: { ...body, rows: 99 } }));

    expect(reused.prelude).toMatchObject({ statusCode: 422, headers: { 'content-type': 'application/problem+json' } });
    expect(problemOf(reused).type).toBe('urn:idemkit:problem:idempotency-key-reused');
    expect(runs).toHaveLength(1);
  });

  it('fails the first caller’s stream when its completion’s answer is lost; the retry replays what was committed', async () => {
    const { journal, client } = await dynamoJournal({ maxAttempts: 1 });
    const exports = await createTable(client, 'exports');
    const fault = injectFault(client, 'complete', { kind: 'lost-response' }, { times: 1 });
    let runs = 0;
    const handler = async (_event: unknown, context: unknown) => {
      runs++;
      // A staged write commits with the outcome: the first answer waits on that one transaction.
      idempotencyOf(context as never).stage({ Put: { TableName: exports, Item: { pk: 'exp_1', runs } } });
      return { statusCode: 201, headers: { 'content-type': 'text/csv' }, body: Readable.from(chunks) };
    };
    const event = functionUrlEvent({ idempotencyKey: 'lost-1', body });

    const first = await streamingGuard(handler, journal)(event);
    const retry = await streamingGuard(handler, journal)(event);
    const staged = await client.send(new GetItemCommand({ TableName: exports, Key: { pk: { S: 'exp_1' } } }));

    expect(fault.delivered()).toBe(1);
    expect(first.body.toString()).toBe(chunks.join(''));
    expect(first.error?.errorType).toBe('JournalUnavailableError');
    expect(retry.error).toBeUndefined();
    expect(retry.prelude?.headers?.['Idempotent-Replayed']).toBe('true');
    expect(retry.body.toString()).toBe(chunks.join(''));
    expect(staged.Item?.runs?.N).toBe('1');
    expect(runs).toBe(1);
  });

  describe('a stream larger than a record can hold', () => {
    /** A handler streaming 1 MB parts without end, counting the parts it was asked for. */
    function endlessHandler(options: { beginEffect?: boolean } = {}) {
      const read = { parts: 0, runs: 0 };
      const handler = async (_event: unknown, context: unknown) => {
        read.runs++;
        if (options.beginEffect) await idempotencyOf(context as never).beginEffect();
        async function* parts() {
          for (;;) {
            read.parts++;
            yield Buffer.alloc(MB, 'a');
          }
        }
        const body = Readable.from(parts(), { highWaterMark: 1 });
        return { statusCode: 200, headers: { 'content-type': 'text/plain' }, body };
      };
      return { read, handler };
    }

    it('is cut at the limit with ResponseTooLargeError, stored in no part, and released for a retry', async () => {
      const { journal, client, tableName } = await dynamoJournal();
      const { read, handler } = endlessHandler();
      const event = functionUrlEvent({ idempotencyKey: 'huge-1', body });

      const first = await streamingGuard(handler, journal)(event);
      const partsRead = read.parts;
      const items = await client.send(new ScanCommand({ TableName: tableName }));
      const retry = await streamingGuard(handler, journal)(event);

      expect(first.error?.errorType).toBe('ResponseTooLargeError');
      expect(first.body.length).toBeLessThanOrEqual(6 * MB);
      // Seven parts pass the limit; the source reads one ahead.
      expect(partsRead).toBeLessThanOrEqual(8);
      expect(items.Count).toBe(0);
      expect(retry.error?.errorType).toBe('ResponseTooLargeError');
      expect(read.runs).toBe(2);
    }, 60_000);

    it('is held for review after beginEffect: the retry gets 409 needs-review', async () => {
      const { journal } = await dynamoJournal();
      const { read, handler } = endlessHandler({ beginEffect: true });
      const event = functionUrlEvent({ idempotencyKey: 'huge-2', body });

      const first = await streamingGuard(handler, journal)(event);
      const retry = await streamingGuard(handler, journal)(event);

      expect(first.error?.errorType).toBe('ResponseTooLargeError');
      expect(retry.prelude?.statusCode).toBe(409);
      expect(problemOf(retry).type).toBe('urn:idemkit:problem:needs-review');
      expect(read.runs).toBe(1);
    }, 60_000);
  });
});

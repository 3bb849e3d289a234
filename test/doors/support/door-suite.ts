import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { httpIdempotency, type DynamoDBJournal } from '../../../src/index.js';
import type { HttpGuardOptions } from '../../../src/http/index.js';
import { httpApiEvent, lambdaContext, restApiEvent } from '../../../src/testing/index.js';
import { dynamoJournal } from '../../support/dynamodb.js';
import { BINARY_BODY, PaymentsBehaviour } from './payments-behaviour.js';
import { requestPk } from '../../../src/entries/journal.js';

/** An app served on 127.0.0.1. */
export interface Served {
  readonly url: string;
  close(): Promise<void>;
}

/** What a Lambda adapter answers. */
export interface LambdaResult {
  readonly statusCode: number;
  readonly headers?: Record<string, unknown>;
  readonly multiValueHeaders?: Record<string, unknown[]>;
  readonly body?: string;
  readonly isBase64Encoded?: boolean;
}

export type LambdaHandler = (event: unknown, context: Context) => Promise<LambdaResult>;

/**
 * One framework door, as the shared suite drives it: the payments app behind it, served and behind
 * its adapters. The app serves `POST /payments/:id/refunds` through {@link PaymentsBehaviour} with
 * the guard on the route, and `GET /payments/:id/refunds` with the guard too, answering `{ unguarded: true }`
 * when it lets a request through.
 */
export interface Door {
  readonly name: string;
  serve(journal: DynamoDBJournal, behaviour: PaymentsBehaviour, options?: Partial<HttpGuardOptions>): Promise<Served>;
  /** The app behind each Lambda adapter the door supports, by the adapter's name. */
  readonly adapters: Record<
    string,
    (journal: DynamoDBJournal, behaviour: PaymentsBehaviour, options?: Partial<HttpGuardOptions>) => LambdaHandler
  >;
}

const ROUTE = 'POST /payments/{id}/refunds';

interface Sent {
  readonly status: number;
  readonly headers: Headers;
  readonly bytes: Buffer;
  readonly json: () => any;
}

async function post(
  url: string,
  options: { key?: string; body?: unknown; path?: string; signal?: AbortSignal; method?: string } = {},
): Promise<Sent> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (options.key !== undefined) headers['idempotency-key'] = options.key;
  const response = await fetch(`${url}${options.path ?? '/payments/p_1/refunds'}`, {
    method: options.method ?? 'POST',
    headers,
    body: options.method === 'GET' ? undefined : JSON.stringify(options.body ?? { amount: 10 }),
    signal: options.signal,
  });
  const bytes = Buffer.from(await response.arrayBuffer());
  return { status: response.status, headers: response.headers, bytes, json: () => JSON.parse(bytes.toString('utf8')) };
}

const newKey = () => `key-${Math.random().toString(36).slice(2)}`;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits until `condition` holds, polling, for at most `timeoutMs`. */
async function eventually(condition: () => Promise<boolean> | boolean, timeoutMs = 5_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > until) throw new Error('condition not met in time');
    await sleep(20);
  }
}

/** The same behaviour through a framework door, served on 127.0.0.1 and behind its Lambda adapters, on DynamoDB Local. */
export function describeDoor(door: Door): void {
  describe(`${door.name} door, served on 127.0.0.1, on DynamoDB Local`, () => {
    let journal: DynamoDBJournal;
    let behaviour: PaymentsBehaviour;
    let served: Served;

    beforeAll(async () => {
      ({ journal } = await dynamoJournal());
    });

    beforeEach(async () => {
      behaviour = new PaymentsBehaviour();
      served = await door.serve(journal, behaviour);
    });

    afterEach(async () => {
      behaviour.release();
      await served.close();
    });

    it('runs a new key once and replays its stored response byte for byte, marked Idempotent-Replayed', async () => {
      const key = newKey();

      const first = await post(served.url, { key });
      const retry = await post(served.url, { key });

      expect(first.status).toBe(201);
      expect(first.json()).toMatchObject({ refund: 'r_1', payment: 'p_1', key, amount: 10 });
      expect(first.headers.get('set-cookie')).toBe('session=1');
      expect(retry.status).toBe(201);
      expect(retry.bytes.equals(first.bytes)).toBe(true);
      expect(retry.headers.get('idempotent-replayed')).toBe('true');
      expect(retry.headers.get('location')).toBe('/payments/p_1/refunds/r_1');
      expect(retry.headers.get('content-type')).toBe(first.headers.get('content-type'));
      expect(retry.headers.get('set-cookie')).toBeNull();
      expect(behaviour.runs).toBe(1);
    });

    it('answers the first caller only once its outcome is stored, under the route pattern as operation', async () => {
      const key = newKey();

      await post(served.url, { key });

      const record = await journal.get(requestPk('-', ROUTE, key));
      expect(record?.status).toBe('COMPLETED');
    });

    it('refuses the key with another body: 422 problem, the handler not run again', async () => {
      const key = newKey();
      await post(served.url, { key, body: { amount: 10 } });

      const reused = await post(served.url, { key, body: { amount: 11 } });

      expect(reused.status).toBe(422);
      expect(reused.headers.get('content-type')).toBe('application/problem+json');
      expect(reused.json()).toMatchObject({ type: 'urn:idemkit:problem:idempotency-key-reused', status: 422 });
      expect(behaviour.runs).toBe(1);
    });

    it('answers a duplicate 409 with Retry-After while the first still runs', async () => {
      const key = newKey();
      behaviour.hold();
      const first = post(served.url, { key });
      await eventually(() => behaviour.runs === 1);

      const duplicate = await post(served.url, { key });
      behaviour.release();

      expect(duplicate.status).toBe(409);
      expect(duplicate.headers.get('retry-after')).toBe('1');
      expect((await first).status).toBe(201);
      expect(behaviour.runs).toBe(1);
    });

    it('gives each of many concurrent requests its own scope', async () => {
      const keys = Array.from({ length: 12 }, newKey);

      const answers = await Promise.all(
        keys.map((key, i) => post(served.url, { key, body: { amount: i, delayMs: (i * 7) % 40 } })),
      );

      answers.forEach((answer, i) => expect(answer.json()).toMatchObject({ key: keys[i], amount: i }));
    });

    it('stores the outcome of a request whose client went away, and replays it to the retry', async () => {
      const key = newKey();
      behaviour.hold();
      const abort = new AbortController();
      const gone = post(served.url, { key, signal: abort.signal }).catch((error: unknown) => error);
      await eventually(() => behaviour.runs === 1);
      abort.abort();
      await gone;

      behaviour.release();
      await eventually(async () => (await journal.get(requestPk('-', ROUTE, key)))?.status === 'COMPLETED');
      const retry = await post(served.url, { key });

      expect(retry.status).toBe(201);
      expect(retry.headers.get('idempotent-replayed')).toBe('true');
      expect(behaviour.runs).toBe(1);
    });

    it('captures a streamed response whole and replays it byte for byte', async () => {
      const key = newKey();

      const first = await post(served.url, { key, body: { stream: true } });
      const retry = await post(served.url, { key, body: { stream: true } });

      expect(first.bytes.toString('utf8')).toBe('refund r_1 streamed ✓');
      expect(retry.bytes.equals(first.bytes)).toBe(true);
      expect(retry.headers.get('idempotent-replayed')).toBe('true');
    });

    it('replays a binary response byte for byte', async () => {
      const key = newKey();

      const first = await post(served.url, { key, body: { binary: true } });
      const retry = await post(served.url, { key, body: { binary: true } });

      expect(first.bytes.equals(BINARY_BODY)).toBe(true);
      expect(retry.bytes.equals(BINARY_BODY)).toBe(true);
      expect(retry.headers.get('content-type')).toBe('application/octet-stream');
    });

    it('refuses a response it cannot store whole: response-too-large to the first caller and the retry, never run again', async () => {
      const key = newKey();

      const first = await post(served.url, { key, body: { oversized: true } });
      const retry = await post(served.url, { key, body: { oversized: true } });

      for (const answer of [first, retry]) {
        expect(answer.status).toBe(500);
        expect(answer.json()).toMatchObject({ type: 'urn:idemkit:problem:response-too-large' });
      }
      expect(behaviour.runs).toBe(1);
    });

    it('lets the key go when the handler throws: the error is the framework’s, and a retry runs again', async () => {
      const key = newKey();

      const first = await post(served.url, { key, body: { fail: true } });
      const retry = await post(served.url, { key, body: { fail: true } });

      expect(first.status).toBe(500);
      expect(retry.status).toBe(500);
      expect(behaviour.runs).toBe(2);
      expect(await journal.get(requestPk('-', ROUTE, key))).toBeUndefined();
    });

    it('answers a claim its scope found taken 409 uniqueness-conflict, and lets the key go', async () => {
      const claim = `charge-${newKey()}`;
      await post(served.url, { key: newKey(), body: { claim } });

      const second = await post(served.url, { key: newKey(), body: { claim } });

      expect(second.status).toBe(409);
      expect(second.json()).toMatchObject({ type: 'urn:idemkit:problem:uniqueness-conflict' });
    });

    it('refuses a POST without a key (400 problem) and lets a GET without one through', async () => {
      const missing = await post(served.url, {});
      const read = await post(served.url, { method: 'GET' });

      expect(missing.status).toBe(400);
      expect(missing.json()).toMatchObject({ type: 'urn:idemkit:problem:idempotency-key-missing' });
      expect(read.status).toBe(200);
      expect(read.json()).toEqual({ unguarded: true });
      expect(behaviour.runs).toBe(0);
    });

    it("runs a route with effects: 'staged-only' (the key claimed with the outcome): a retry runs, commits nothing and answers the stored outcome", async () => {
      await served.close();
      served = await door.serve(journal, behaviour, { effects: 'staged-only' });
      const key = newKey();

      const first = await post(served.url, { key });
      const retry = await post(served.url, { key });

      expect(first.status).toBe(201);
      expect(retry.bytes.equals(first.bytes)).toBe(true);
      expect(retry.headers.get('idempotent-replayed')).toBe('true');
      expect(retry.json()).toMatchObject({ refund: 'r_1' });
      expect(behaviour.runs).toBe(2);
    });

    it('replays a record the Middy middleware wrote for the same request (same scope, same fingerprint)', async () => {
      const key = newKey();
      const middyHandler = middy(async () => ({
        statusCode: 201,
        headers: { 'content-type': 'application/json', location: '/payments/p_1/refunds/r_middy' },
        body: '{"refund":"r_middy"}',
      })).use(httpIdempotency({ journal }));
      await middyHandler(
        httpApiEvent({
          path: '/payments/p_1/refunds',
          route: '/payments/{id}/refunds',
          idempotencyKey: key,
          body: { amount: 10 },
        }),
        lambdaContext(),
      );

      const throughDoor = await post(served.url, { key, body: { amount: 10 } });

      expect(throughDoor.status).toBe(201);
      expect(throughDoor.bytes.toString()).toBe('{"refund":"r_middy"}');
      expect(throughDoor.headers.get('idempotent-replayed')).toBe('true');
      expect(behaviour.runs).toBe(0);
    });
  });

  for (const [adapterName, lambdaApp] of Object.entries(door.adapters)) {
    describe(`${door.name} door under ${adapterName}, on DynamoDB Local`, () => {
      let journal: DynamoDBJournal;
      let behaviour: PaymentsBehaviour;
      let handler: LambdaHandler;

      beforeAll(async () => {
        ({ journal } = await dynamoJournal());
      });

      beforeEach(() => {
        behaviour = new PaymentsBehaviour();
        handler = lambdaApp(journal, behaviour);
      });

      it("scopes the key to the authorizer's principal from the HTTP API event, and replays", async () => {
        const key = newKey();
        const event = () =>
          httpApiEvent({
            path: '/payments/p_1/refunds',
            route: '/{proxy+}',
            idempotencyKey: key,
            body: { amount: 5 },
            principal: 'user-7',
          });

        const first = await handler(event(), lambdaContext());
        const retry = await handler(event(), lambdaContext());

        expect(first.statusCode).toBe(201);
        expect(retry.statusCode).toBe(201);
        expect(retry.body).toBe(first.body);
        expect(headerOf(retry, 'idempotent-replayed')).toBe('true');
        expect(behaviour.runs).toBe(1);
        expect((await journal.get(requestPk('user-7', ROUTE, key)))?.status).toBe('COMPLETED');
      });

      it.each([
        ['an HTTP API (v2) event', httpApiEvent],
        ['a REST API (v1) event', restApiEvent],
      ])(
        'replays what the Middy middleware stored for the same route and %s: no double run when a route moves',
        async (_name, build) => {
          const key = newKey();
          const event = (route: string) =>
            build({
              path: '/payments/p_9/refunds',
              route,
              idempotencyKey: key,
              body: { amount: 12 },
              query: { note: 'a' },
              principal: 'user-9',
            });
          const middyHandler = middy(async () => ({
            statusCode: 201,
            headers: { 'content-type': 'application/json' },
            body: '{"refund":"r_middy"}',
          })).use(httpIdempotency({ journal }));
          await middyHandler(event('/payments/{id}/refunds'), lambdaContext());

          const moved = await handler(event('/{proxy+}'), lambdaContext());

          expect(moved.statusCode).toBe(201);
          expect(moved.body).toBe('{"refund":"r_middy"}');
          expect(headerOf(moved, 'idempotent-replayed')).toBe('true');
          expect(behaviour.runs).toBe(0);
        },
      );

      it('refuses the same key with another body (422), as the Middy middleware would', async () => {
        const key = newKey();
        const event = (amount: number) =>
          httpApiEvent({ path: '/payments/p_1/refunds', route: '/{proxy+}', idempotencyKey: key, body: { amount } });
        await handler(event(1), lambdaContext());

        const reused = await handler(event(2), lambdaContext());

        expect(reused.statusCode).toBe(422);
        expect(behaviour.runs).toBe(1);
      });
    });
  }
}

function headerOf(result: LambdaResult, name: string): unknown {
  const single = Object.entries(result.headers ?? {}).find(([key]) => key.toLowerCase() === name)?.[1];
  if (single !== undefined) return single;
  return Object.entries(result.multiValueHeaders ?? {}).find(([key]) => key.toLowerCase() === name)?.[1]?.[0];
}

import { serve as serveNode } from '@hono/node-server';
import { Hono } from 'hono';
import { handle } from 'hono/aws-lambda';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { idempotency, idempotencyOf, type HonoIdempotencyOptions } from '../../src/entries/hono.js';
import { type DynamoDBJournal } from '../../src/index.js';
import { dynamoJournal } from '../support/dynamodb.js';
import { describeDoor, type LambdaHandler, type Served } from './support/door-suite.js';
import type { PaymentsBehaviour } from './support/payments-behaviour.js';
import { requestPk } from '../../src/entries/journal.js';

/** The payments app on Hono: the guard on the route. */
function paymentsApp(
  journal: DynamoDBJournal,
  behaviour: PaymentsBehaviour,
  options: Partial<HonoIdempotencyOptions> = {},
): Hono {
  const app = new Hono();
  app.get('/payments/:id/refunds', idempotency({ journal, ...options }), (c) => c.json({ unguarded: true }));
  app.post('/payments/:id/refunds', idempotency({ journal, ...options }), async (c) => {
    const answer = await behaviour.refund(idempotencyOf(c), c.req.param('id'), await c.req.json());
    const status = answer.status as 201;
    if (answer.stream) return c.body(Readable.toWeb(answer.stream) as ReadableStream, status, answer.headers);
    if (answer.bytes) return c.body(new Uint8Array(answer.bytes), status, answer.headers);
    return c.json(answer.json, status, answer.headers);
  });
  return app;
}

async function serve(app: Hono): Promise<Served> {
  const server = await new Promise<ReturnType<typeof serveNode>>((resolve) => {
    const started = serveNode({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(started));
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

describeDoor({
  name: 'Hono',
  serve: async (journal, behaviour, options) => serve(paymentsApp(journal, behaviour, options)),
  adapters: {
    'hono/aws-lambda': (journal, behaviour, options) =>
      handle(paymentsApp(journal, behaviour, options)) as unknown as LambdaHandler,
  },
});

describe('Hono door, where the app places it', () => {
  let journal: DynamoDBJournal;
  beforeAll(async () => {
    ({ journal } = await dynamoJournal());
  });

  const send = (app: Hono, key: string, path = '/payments/p_1/refunds') =>
    app.request(path, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'idempotency-key': key },
      body: '{"amount":1}',
    });

  it('names the operation by the handler’s route when mounted for every route (app.use)', async () => {
    const app = new Hono();
    app.use('*', idempotency({ journal }));
    app.post('/payments/:id/refunds', (c) => c.json({ ok: true }, 201));
    const key = `k-${Math.random()}`;

    const answer = await send(app, key);

    expect(answer.status).toBe(201);
    expect((await journal.get(requestPk('-', 'POST /payments/{id}/refunds', key)))?.status).toBe('COMPLETED');
  });

  it('lets the handler read the body the guard read: c.req.json() after it', async () => {
    const app = new Hono();
    app.post('/echo', idempotency({ journal }), async (c) => c.json(await c.req.json(), 201));

    const answer = await send(app, `k-${Math.random()}`, '/echo');

    expect(await answer.json()).toEqual({ amount: 1 });
  });

  it('refuses unknown options when the middleware is created, naming them', () => {
    expect(() => idempotency({ journal, migrateFrom: {} } as never)).toThrow("unknown option 'migrateFrom'");
  });
});

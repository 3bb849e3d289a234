import { configure as serverlessExpress, getCurrentInvoke } from '@codegenie/serverless-express';
import express, { type Express } from 'express';
import { createServer } from 'node:http';
import serverless from 'serverless-http';
import { idempotency, idempotencyOf, type ExpressIdempotencyOptions } from '../../src/entries/express.js';
import { type DynamoDBJournal } from '../../src/index.js';
import { dynamoJournal } from '../support/dynamodb.js';
import { describeDoor, type LambdaHandler, type Served } from './support/door-suite.js';
import type { PaymentsBehaviour } from './support/payments-behaviour.js';
import { requestPk } from '../../src/entries/journal.js';

/** The payments app on Express: the guard on the route, before the JSON body parser. */
function paymentsApp(
  journal: DynamoDBJournal,
  behaviour: PaymentsBehaviour,
  options: Partial<ExpressIdempotencyOptions> = {},
): Express {
  const app = express();
  app.get('/payments/:id/refunds', idempotency({ journal, ...options }), (_req, res) => {
    res.json({ unguarded: true });
  });
  app.post('/payments/:id/refunds', idempotency({ journal, ...options }), express.json(), async (req, res) => {
    const answer = await behaviour.refund(idempotencyOf(req), String(req.params.id), req.body);
    res.status(answer.status).set(answer.headers);
    if (answer.stream) answer.stream.pipe(res);
    else if (answer.bytes) res.send(answer.bytes);
    else res.json(answer.json);
  });
  return app;
}

async function serve(app: Express): Promise<Served> {
  const server = createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

describeDoor({
  name: 'Express',
  serve: async (journal, behaviour, options) => serve(paymentsApp(journal, behaviour, options)),
  adapters: {
    'serverless-http': (journal, behaviour, options) =>
      serverless(paymentsApp(journal, behaviour, options)) as unknown as LambdaHandler,
    // @codegenie/serverless-express 5 declares Node >= 24 and runs on Node 20: tested on the Node the suite runs on.
    '@codegenie/serverless-express': (journal, behaviour, options) =>
      serverlessExpress({
        app: paymentsApp(journal, behaviour, { lambdaInvocation: () => getCurrentInvoke(), ...options }),
      }) as unknown as LambdaHandler,
  },
});

describe('Express door, where the app places it', () => {
  let journal: DynamoDBJournal;
  beforeAll(async () => {
    ({ journal } = await dynamoJournal());
  });

  const refund = (app: Express, key: string, amount: number, path = '/payments/p_1/refunds') =>
    request(app, { key, body: { amount }, path });

  it('fingerprints the parsed body when express.json() ran first: replays the same body, refuses another', async () => {
    const app = express();
    let runs = 0;
    app.use(express.json());
    app.post('/payments/:id/refunds', idempotency({ journal }), (req, res) => {
      res.status(201).json({ run: ++runs, amount: req.body.amount });
    });
    const key = `k-${Math.random()}`;

    const first = await refund(app, key, 10);
    const retry = await refund(app, key, 10);
    const reused = await refund(app, key, 11);

    expect(first.status).toBe(201);
    expect(retry.body).toBe(first.body);
    expect(reused.status).toBe(422);
    expect(runs).toBe(1);
  });

  it('names the operation by the router mount path and the route pattern', async () => {
    const app = express();
    const router = express.Router();
    router.post('/:id/refunds', idempotency({ journal }), (_req, res) => {
      res.status(201).json({ ok: true });
    });
    app.use('/payments', router);
    const key = `k-${Math.random()}`;

    await refund(app, key, 1);

    expect((await journal.get(requestPk('-', 'POST /payments/{id}/refunds', key)))?.status).toBe('COMPLETED');
  });

  it('names the operation by the concrete path when used before routing (app.use)', async () => {
    const app = express();
    app.use(idempotency({ journal }));
    app.post('/payments/:id/refunds', (_req, res) => {
      res.status(201).json({ ok: true });
    });
    const key = `k-${Math.random()}`;

    await refund(app, key, 1, '/payments/p_3/refunds');

    expect((await journal.get(requestPk('-', 'POST /payments/p_3/refunds', key)))?.status).toBe('COMPLETED');
  });

  it('refuses unknown options when the middleware is created, naming them', () => {
    expect(() => idempotency({ journal, migrateFrom: {} } as never)).toThrow("unknown option 'migrateFrom'");
  });
});

/** One request to `app` on a server of its own, closed after the answer. */
async function request(
  app: Express,
  options: { key: string; body: unknown; path: string },
): Promise<{ status: number; body: string }> {
  const served = await serve(app);
  try {
    const response = await fetch(`${served.url}${options.path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'idempotency-key': options.key },
      body: JSON.stringify(options.body),
    });
    return { status: response.status, body: await response.text() };
  } finally {
    await served.close();
  }
}

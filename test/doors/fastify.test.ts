import awsLambdaFastify from '@fastify/aws-lambda';
import Fastify, { type FastifyInstance } from 'fastify';
import { idempotency, idempotencyOf, type FastifyIdempotencyOptions } from '../../src/entries/fastify.js';
import { type DynamoDBJournal } from '../../src/index.js';
import { dynamoJournal } from '../support/dynamodb.js';
import { describeDoor, type LambdaHandler, type Served } from './support/door-suite.js';
import type { PaymentsBehaviour } from './support/payments-behaviour.js';
import { requestPk } from '../../src/entries/journal.js';

/** The payments app on Fastify: the plugin registered before the routes. */
function paymentsApp(
  journal: DynamoDBJournal,
  behaviour: PaymentsBehaviour,
  options: Partial<FastifyIdempotencyOptions> = {},
): FastifyInstance {
  const app = Fastify();
  app.register(idempotency, { journal, ...options });
  app.register(async (routes) => {
    routes.get('/payments/:id/refunds', async () => ({ unguarded: true }));
    routes.post<{ Params: { id: string }; Body: Record<string, unknown> }>(
      '/payments/:id/refunds',
      async (request, reply) => {
        const answer = await behaviour.refund(idempotencyOf(request), request.params.id, request.body);
        reply.code(answer.status).headers(answer.headers);
        return reply.send(answer.stream ?? answer.bytes ?? answer.json);
      },
    );
  });
  return app;
}

async function serve(app: FastifyInstance): Promise<Served> {
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  return { url, close: () => app.close() };
}

describeDoor({
  name: 'Fastify',
  serve: async (journal, behaviour, options) => serve(paymentsApp(journal, behaviour, options)),
  adapters: {
    '@fastify/aws-lambda': (journal, behaviour, options) =>
      awsLambdaFastify(paymentsApp(journal, behaviour, options)) as unknown as LambdaHandler,
  },
});

describe('Fastify door, where the app places it', () => {
  let journal: DynamoDBJournal;
  beforeAll(async () => {
    ({ journal } = await dynamoJournal());
  });

  it('guards routes registered under a prefix, named by the prefixed route pattern', async () => {
    const app = Fastify();
    await app.register(idempotency, { journal });
    await app.register(
      async (payments) => {
        payments.post('/:id/refunds', async (_request, reply) => reply.code(201).send({ ok: true }));
      },
      { prefix: '/payments' },
    );
    const key = `k-${Math.random()}`;

    const answer = await app.inject({
      method: 'POST',
      url: '/payments/p_1/refunds',
      headers: { 'content-type': 'application/json', 'idempotency-key': key },
      payload: '{"amount":1}',
    });

    expect(answer.statusCode).toBe(201);
    expect((await journal.get(requestPk('-', 'POST /payments/{id}/refunds', key)))?.status).toBe('COMPLETED');
  });

  it('refuses unknown options when the plugin is registered, naming them', async () => {
    const app = Fastify();
    app.register(idempotency, { journal, migrateFrom: {} } as never);

    await expect(app.ready()).rejects.toThrow("unknown option 'migrateFrom'");
  });
});

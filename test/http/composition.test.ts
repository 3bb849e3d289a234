import middy from '@middy/core';
import httpErrorHandler from '@middy/http-error-handler';
import httpJsonBodyParser from '@middy/http-json-body-parser';
import { MemoryJournal, httpIdempotency, idempotencyOf } from '../../src/index.js';
import { httpEvent, lambdaContext } from '../support/lambda.js';

type Handler = (event: any, context: any) => Promise<any>;

function orders(handler: Handler, journal: MemoryJournal) {
  return {
    'idempotency first': middy(handler)
      .use(httpIdempotency({ journal }))
      .use(httpJsonBodyParser())
      .use(httpErrorHandler({ logger: false })),
    'idempotency last': middy(handler)
      .use(httpErrorHandler({ logger: false }))
      .use(httpJsonBodyParser())
      .use(httpIdempotency({ journal })),
  };
}

describe.each(['idempotency first', 'idempotency last'] as const)(
  'composed with body parser and error handler (%s)',
  (order) => {
    it('replays with the same fingerprint whether or not the body was parsed first', async () => {
      let runs = 0;
      const handler = async (event: any) => {
        runs++;
        return { statusCode: 201, body: JSON.stringify({ amount: event.body.amount, run: runs }) };
      };
      const wrapped = orders(handler, new MemoryJournal())[order];
      const first = await wrapped(httpEvent({ key: 'k1', body: { amount: 10 } }), lambdaContext());
      const replay = await wrapped(httpEvent({ key: 'k1', rawBody: '{ "amount": 10 }' }), lambdaContext());
      const mismatch = await wrapped(httpEvent({ key: 'k1', body: { amount: 11 } }), lambdaContext());
      expect(replay).toMatchObject({ statusCode: 201, body: first.body });
      expect(mismatch.statusCode).toBe(422);
      expect(runs).toBe(1);
    });

    it('releases the key when the handler throws an HTTP error, and the error handler answers it', async () => {
      let runs = 0;
      const handler = async () => {
        runs++;
        const error = Object.assign(new Error('Payment rail unavailable'), { statusCode: 503, expose: true });
        throw error;
      };
      const wrapped = orders(handler, new MemoryJournal())[order];
      const first = await wrapped(httpEvent({ key: 'k2', body: { amount: 10 } }), lambdaContext());
      const second = await wrapped(httpEvent({ key: 'k2', body: { amount: 10 } }), lambdaContext());
      expect(first.statusCode).toBe(503);
      expect(second.statusCode).toBe(503);
      expect(runs).toBe(2);
    });

    it('gives the handler its scope through idempotencyOf(context)', async () => {
      const handler = async (_event: any, context: any) => ({
        statusCode: 200,
        body: idempotencyOf(context).deriveKey('charge'),
      });
      const wrapped = orders(handler, new MemoryJournal())[order];
      const first = await wrapped(httpEvent({ key: 'k3', body: { amount: 1 } }), lambdaContext());
      expect(first.body).toMatch(/^[0-9a-f]{32}$/);
    });
  },
);

describe('replays answered early', () => {
  it('still log one line and count the replay', async () => {
    const logger = { info: jest.fn(), error: jest.fn() };
    const journal = new MemoryJournal();
    const wrapped = middy(async () => ({ statusCode: 200, body: 'x' })).use(
      httpIdempotency({ journal, logger: logger as never }),
    );
    await wrapped(httpEvent({ key: 'early', body: {} }), lambdaContext());
    await wrapped(httpEvent({ key: 'early', body: {} }), lambdaContext());
    expect(logger.info).toHaveBeenCalledTimes(2);
    const fields = logger.info.mock.calls[1][1];
    expect(fields).toMatchObject({
      idempotency_status: 'replay',
      response_code: 200,
      operation: 'POST /payments',
      tenant_id: '-',
      journal_calls: 1,
    });
    expect(JSON.stringify(fields)).not.toContain('early');
  });
});

/**
 * Middy's `timeoutEarly` (on by default, 5 ms before the deadline) rejects the invocation with
 * its `TimeoutError` while the handler's promise goes on. The outcome is unknown, so the record
 * must stay held under its lease: a retry meets 409, not a second run.
 */
import middy from '@middy/core';
import { httpIdempotency, idempotencyOf, makeIdempotent, RecordStatus } from '../../src/index.js';
import { httpEvent, lambdaContext } from '../support/lambda.js';
import { dynamoJournal } from '../support/dynamodb.js';
import { requestPk } from '../../src/entries/journal.js';

const body = { amount: 1250, currency: 'EUR' };

/** A handler that takes `runMs` and counts how often it starts and finishes. */
function slowHandler(runMs: number) {
  const runs = { started: 0, finished: 0 };
  const handler = async () => {
    runs.started++;
    await new Promise((resolve) => setTimeout(resolve, runMs));
    runs.finished++;
    return { statusCode: 201, body: JSON.stringify({ id: `pay_${runs.started}` }) };
  };
  return { runs, handler };
}

describe('an invocation that ends before its handler settles', () => {
  it('keeps the key held under Middy’s default timeoutEarly: a retry gets 409 and the handler ran once', async () => {
    const { journal } = await dynamoJournal();
    const { runs, handler } = slowHandler(2_000);
    const guarded = middy(handler).use(httpIdempotency({ journal }));

    const first = await (guarded(httpEvent({ key: 'timeout-1', body }), lambdaContext(600)) as Promise<unknown>).then(
      () => undefined,
      (error: Error) => error,
    );
    const retry = await guarded(httpEvent({ key: 'timeout-1', body }), lambdaContext(10_000));

    expect(first).toMatchObject({ name: 'TimeoutError' });
    expect(retry).toMatchObject({ statusCode: 409 });
    expect(JSON.parse((retry as { body: string }).body).type).toBe('urn:idemkit:problem:request-in-progress');
    expect(runs.started).toBe(1);
    const record = await journal.get(requestPk('-', 'POST /payments', 'timeout-1'));
    expect(record?.status).toBe(RecordStatus.inProgress);
  }, 30_000);

  it('keeps the key held when another middleware answers the timeout with a response', async () => {
    const { journal } = await dynamoJournal();
    const { runs, handler } = slowHandler(2_000);
    const answerTimeouts = {
      onError: async (request: { response?: unknown }) => {
        request.response = { statusCode: 504, body: 'timed out' };
      },
    };
    // Middy runs onError hooks last-registered first: the other middleware answers before the guard hears of it.
    const guarded = middy(handler).use(httpIdempotency({ journal })).use(answerTimeouts);

    const first = await guarded(httpEvent({ key: 'timeout-2', body }), lambdaContext(600));
    const retry = await guarded(httpEvent({ key: 'timeout-2', body }), lambdaContext(10_000));

    expect(first).toMatchObject({ statusCode: 504 });
    expect(retry).toMatchObject({ statusCode: 409 });
    expect(runs.started).toBe(1);
  }, 30_000);

  it('runs again only once the lease has ended, when no effect began', async () => {
    const { journal } = await dynamoJournal();
    const { runs, handler } = slowHandler(1_500);
    const guarded = middy(handler).use(httpIdempotency({ journal, leaseMs: 800 }));

    await (guarded(httpEvent({ key: 'timeout-3', body }), lambdaContext(300)) as Promise<unknown>).catch(
      () => undefined,
    );
    const during = await guarded(httpEvent({ key: 'timeout-3', body }), lambdaContext(10_000));
    await new Promise((resolve) => setTimeout(resolve, 900));
    const after = await guarded(httpEvent({ key: 'timeout-3', body }), lambdaContext(10_000));

    expect(during).toMatchObject({ statusCode: 409 });
    expect(after).toMatchObject({ statusCode: 201 });
    expect(runs.started).toBe(2);
  }, 30_000);

  it('needs review instead of a rerun when the timed-out handler had begun its effect', async () => {
    const { journal } = await dynamoJournal();
    let runs = 0;
    const handler = async (_event: unknown, context: object) => {
      runs++;
      await idempotencyOf(context).beginEffect('charge');
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      return { statusCode: 201, body: '{}' };
    };
    const guarded = middy(handler).use(httpIdempotency({ journal, leaseMs: 800 }));

    await (guarded(httpEvent({ key: 'timeout-4', body }), lambdaContext(300)) as Promise<unknown>).catch(
      () => undefined,
    );
    await new Promise((resolve) => setTimeout(resolve, 900));
    const after = await guarded(httpEvent({ key: 'timeout-4', body }), lambdaContext(10_000));

    expect(after).toMatchObject({ statusCode: 409 });
    expect(JSON.parse((after as { body: string }).body).type).toBe('urn:idemkit:problem:needs-review');
    expect(runs).toBe(1);
  }, 30_000);

  it('keeps the key held when makeIdempotent wraps a Middy handler that timed out', async () => {
    const { journal } = await dynamoJournal();
    const { runs, handler } = slowHandler(2_000);
    const inner = middy(handler);
    const guarded = makeIdempotent((input: { id: string }, context) => inner(input, context as never), {
      journal,
      operation: 'slow',
      key: (input) => input.id,
    });

    const first = await guarded({ id: 'timeout-5' }, lambdaContext(600)).catch((error: Error) => error);
    const retry = await guarded({ id: 'timeout-5' }, lambdaContext(10_000)).catch((error: Error) => error);

    expect(first).toMatchObject({ name: 'TimeoutError' });
    expect(retry).toMatchObject({ code: 'request-in-progress' });
    expect(runs.started).toBe(1);
  }, 30_000);
});

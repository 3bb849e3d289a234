import type { DurableContext } from '@aws/durable-execution-sdk-js';
import { LocalDurableTestRunner } from '@aws/durable-execution-sdk-js-testing';
import middy from 'middy7';
import { executionModeDurableContext } from 'middy7/DurableContext';
import { randomUUID } from 'node:crypto';
import { httpIdempotency, idempotencyOf } from '../../src/index.js';
import { httpEvent } from '../support/lambda.js';
import { durableJournal, RecordingRail } from './support/workflow.js';

beforeEach(async () => {
  await LocalDurableTestRunner.setupTestEnvironment({ skipTime: true });
});

afterEach(async () => {
  await LocalDurableTestRunner.teardownTestEnvironment();
});

/** A Middy 7 durable handler behind httpIdempotency: charge, a day's wait, then 201. */
async function durablePaymentHandler() {
  const { journal, clock } = await durableJournal();
  const rail = new RecordingRail();
  const handler = middy<{ body: string }, unknown, Error, DurableContext>({
    executionMode: executionModeDurableContext,
  })
    .use(httpIdempotency({ journal, clock }))
    .handler(async (event, context) => {
      const scope = idempotencyOf(context);
      const { amountCents } = JSON.parse(event.body) as { amountCents: number };
      const chargeId = await context.step('charge', async () => {
        await scope.beginEffect('charge');
        return rail.charge(scope.deriveKey('charge'), amountCents);
      });
      await context.wait('settle', { seconds: 86_400 });
      return { statusCode: 201, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ chargeId }) };
    });
  return {
    rail,
    run: (payload: unknown) => new LocalDurableTestRunner({ handlerFunction: handler as never }).run({ payload }),
  };
}

describe('httpIdempotency in a Middy 7 durable handler', () => {
  it('lets the execution replay past its own record and stores its final response once', async () => {
    const { rail, run } = await durablePaymentHandler();
    const event = httpEvent({ key: randomUUID(), body: { amountCents: 700 } });

    const execution = await run(event);

    expect(execution.getStatus()).toBe('SUCCEEDED');
    expect(execution.getInvocations().length).toBeGreaterThan(1);
    expect(execution.getResult()).toMatchObject({ statusCode: 201, body: JSON.stringify({ chargeId: 'ch_1' }) });
    expect(rail.charges).toHaveLength(1);
  });

  it('answers a retry of the same request, in another execution, with the replayed 201', async () => {
    const { rail, run } = await durablePaymentHandler();
    const event = httpEvent({ key: randomUUID(), body: { amountCents: 700 } });
    await run(event);

    const retry = await run(event);

    expect(retry.getResult()).toMatchObject({
      statusCode: 201,
      headers: expect.objectContaining({ 'Idempotent-Replayed': 'true' }),
    });
    expect(rail.charges).toHaveLength(1);
  });

  it('answers the same key with another body 422, in another execution', async () => {
    const { rail, run } = await durablePaymentHandler();
    const key = randomUUID();
    await run(httpEvent({ key, body: { amountCents: 700 } }));

    const reused = await run(httpEvent({ key, body: { amountCents: 900 } }));

    expect(reused.getResult()).toMatchObject({ statusCode: 422 });
    expect(rail.charges).toHaveLength(1);
  });
});

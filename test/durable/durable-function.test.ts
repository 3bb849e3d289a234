import { withDurableExecution } from '@aws/durable-execution-sdk-js';
import { LocalDurableTestRunner } from '@aws/durable-execution-sdk-js-testing';
import { randomUUID } from 'node:crypto';
import { InProgressError } from '../../src/index.js';
import { lambdaContext } from '../support/lambda.js';
import { durableJournal, fulfilmentWorkflow, RecordingRail, type Order } from './support/workflow.js';

const TWO_DAYS_SECONDS = 2 * 86_400;

// The runner's checkpoint server keeps real time while the fake clock jumps ahead with every skipped wait:
// a fresh environment per test keeps the two together, so each test's waits are skipped in full.
beforeEach(async () => {
  await LocalDurableTestRunner.setupTestEnvironment({ skipTime: true });
});

afterEach(async () => {
  await LocalDurableTestRunner.teardownTestEnvironment();
});

function order(): Order {
  return { orderId: `order-${randomUUID()}`, amountCents: 1250 };
}

describe('a guarded durable function on the local runner', () => {
  it('runs its external effect once across the replays of a multi-step execution', async () => {
    const { journal, clock } = await durableJournal();
    const rail = new RecordingRail();
    const workflow = fulfilmentWorkflow(rail, { journal, clock }, (context) =>
      context.wait('cool-off', { seconds: TWO_DAYS_SECONDS }),
    );
    const runner = new LocalDurableTestRunner({ handlerFunction: withDurableExecution(workflow) });

    const execution = await runner.run({ payload: order() });

    expect(execution.getStatus()).toBe('SUCCEEDED');
    expect(execution.getInvocations().length).toBeGreaterThan(1);
    expect(rail.charges).toHaveLength(1);
    expect(execution.getResult()).toEqual({
      chargeId: 'ch_1',
      chargeKey: rail.charges[0].idempotencyKey,
      shipment: 'shipment-for-ch_1',
    });
  });

  it('refuses a duplicate that arrives two days into a wait as in progress, never a takeover', async () => {
    const { journal, clock } = await durableJournal();
    const rail = new RecordingRail();
    const input = order();
    let duplicate: unknown;
    let waitedMs = 0;
    const workflow = fulfilmentWorkflow(rail, { journal, clock }, async (context) => {
      const before = await context.step('before-wait', async () => clock());
      await context.wait('cool-off', { seconds: TWO_DAYS_SECONDS });
      waitedMs = clock() - before;
      // Two days later (the runner skipped them) the execution still holds its record: a caller's retry meets it.
      duplicate = await context.step('probe', async () =>
        guardedDuplicate(input).then(
          () => 'ran',
          (error: unknown) => (error instanceof InProgressError ? 'in-progress' : String(error)),
        ),
      );
    });
    const guardedDuplicate = (payload: Order) => workflow(payload, lambdaContext(900_000) as never);
    const runner = new LocalDurableTestRunner({ handlerFunction: withDurableExecution(workflow) });

    const execution = await runner.run({ payload: input });

    expect(execution.getStatus()).toBe('SUCCEEDED');
    expect(waitedMs).toBeGreaterThanOrEqual(TWO_DAYS_SECONDS * 1_000);
    expect(duplicate).toBe('in-progress');
    expect(rail.charges).toHaveLength(1);
  });
});

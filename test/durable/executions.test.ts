import { withDurableExecution } from '@aws/durable-execution-sdk-js';
import { LocalDurableTestRunner, WaitingOperationStatus } from '@aws/durable-execution-sdk-js-testing';
import { randomUUID } from 'node:crypto';
import { requestPk } from '../../src/journal/index.js';
import { durableJournal, fulfilmentWorkflow, RecordingRail, type Order } from './support/workflow.js';

const SIXTEEN_MINUTES_MS = 16 * 60_000;

beforeEach(async () => {
  await LocalDurableTestRunner.setupTestEnvironment({ skipTime: true });
});

afterEach(async () => {
  await LocalDurableTestRunner.teardownTestEnvironment();
});

/** The workflow suspended on an approval callback, run by a runner of its own: one durable execution. */
async function approvalExecutions(options: { durableExecutionTimeoutSeconds?: number } = {}) {
  const { journal, clock, skipMs } = await durableJournal();
  const rail = new RecordingRail();
  const workflow = fulfilmentWorkflow(rail, { ...options, journal, clock }, (context) =>
    context.waitForCallback('approval', async () => undefined),
  );
  const handlerFunction = withDurableExecution(workflow);
  return { journal, rail, skipMs, start: () => new LocalDurableTestRunner({ handlerFunction }) };
}

function order(): Order {
  return { orderId: `order-${randomUUID()}`, amountCents: 990 };
}

describe('executions of one guarded durable function', () => {
  it('refuses another execution of the same key, started while the first is suspended, as in progress', async () => {
    const { rail, skipMs, start } = await approvalExecutions();
    const input = order();
    const first = start();
    const running = first.run({ payload: input });
    const approval = first.getOperation('approval');
    await approval.waitForData(WaitingOperationStatus.STARTED);
    // Past the 15 minutes an invocation's lease would have covered: the first execution still holds the key.
    skipMs(SIXTEEN_MINUTES_MS);

    const duplicate = await start().run({ payload: input });
    await approval.sendCallbackSuccess('"approved"');
    const completed = await running;

    expect(duplicate.getStatus()).toBe('FAILED');
    expect(duplicate.getError().errorType).toBe('InProgressError');
    expect(completed.getStatus()).toBe('SUCCEEDED');
    expect(rail.charges).toHaveLength(1);
  });

  it('replays the completed execution result to a later execution of the same key, without running a step', async () => {
    const { journal, rail, start } = await approvalExecutions();
    const input = order();
    const first = start();
    const running = first.run({ payload: input });
    const approval = first.getOperation('approval');
    await approval.waitForData(WaitingOperationStatus.STARTED);
    await approval.sendCallbackSuccess('"approved"');
    const completed = await running;

    const later = await start().run({ payload: input });

    expect(later.getStatus()).toBe('SUCCEEDED');
    expect(later.getResult()).toEqual(completed.getResult());
    expect(later.getOperations()).toHaveLength(0);
    expect(rail.charges).toHaveLength(1);
    const record = await journal.get(requestPk('-', 'fulfil', input.orderId));
    expect(record?.status).toBe('COMPLETED');
  });

  it('records the execution that holds the key, and keeps it for the whole suspension', async () => {
    const { journal, skipMs, start } = await approvalExecutions();
    const input = order();
    const first = start();
    const running = first.run({ payload: input });
    const approval = first.getOperation('approval');
    await approval.waitForData(WaitingOperationStatus.STARTED);
    skipMs(SIXTEEN_MINUTES_MS);

    const held = await journal.get(requestPk('-', 'fulfil', input.orderId));
    await approval.sendCallbackSuccess('"approved"');
    await running;

    expect(held?.status).toBe('IN_PROGRESS');
    expect(held?.durableExecutionArn).toEqual(expect.any(String));
    expect(held?.attempt).toBe(1);
    expect(held!.leaseUntilEpochMs - held!.createdAtEpochMs).toBe(31_622_400_000 + 1_000);
  });

  it('lets the takeover rules decide once the configured execution timeout has passed: after the charge, needs review', async () => {
    const { journal, rail, skipMs, start } = await approvalExecutions({ durableExecutionTimeoutSeconds: 3_600 });
    const input = order();
    const first = start();
    void first.run({ payload: input });
    await first.getOperation('approval').waitForData(WaitingOperationStatus.STARTED);
    // Lambda stopped the first execution at its timeout, suspended: no invocation of it ever settles the record.
    skipMs(2 * 3_600_000);

    const later = await start().run({ payload: input });

    expect(later.getStatus()).toBe('FAILED');
    expect(later.getError().errorType).toBe('NeedsReviewError');
    expect((await journal.get(requestPk('-', 'fulfil', input.orderId)))?.status).toBe('UNKNOWN');
    expect(rail.charges).toHaveLength(1);
  });

  it("refuses effects: 'staged-only' in a durable execution before any step runs", async () => {
    const { journal, clock } = await durableJournal();
    const rail = new RecordingRail();
    const workflow = fulfilmentWorkflow(rail, { journal, clock, effects: 'staged-only' }, async () => undefined);

    const execution = await new LocalDurableTestRunner({ handlerFunction: withDurableExecution(workflow) }).run({
      payload: order(),
    });

    expect(execution.getStatus()).toBe('FAILED');
    expect(execution.getError().errorType).toBe('InvalidOptionsError');
    expect(rail.charges).toHaveLength(0);
  });
});

import { withDurableExecution } from '@aws/durable-execution-sdk-js';
import { LocalDurableTestRunner } from '@aws/durable-execution-sdk-js-testing';
import { randomUUID } from 'node:crypto';
import { requestPk } from '../../src/journal/index.js';
import { startFulfilmentHandler, type DurableStart } from '../../src/handlers/factories/start-fulfilment.js';
import { httpEvent, lambdaContext } from '../support/lambda.js';
import { durableJournal, fulfilmentWorkflow, RecordingRail } from './support/workflow.js';

const DAY_MS = 86_400_000;

beforeEach(async () => {
  await LocalDurableTestRunner.setupTestEnvironment({ skipTime: true });
});

afterEach(async () => {
  await LocalDurableTestRunner.teardownTestEnvironment();
});

/**
 * The front door and the durable workflow it starts, on one journal. Each start runs a new
 * execution on the local runner and answers the ARN the guarded workflow recorded; `lose`
 * makes the next start lose Lambda's answer after the execution started.
 */
async function frontDoor() {
  const { journal, clock } = await durableJournal();
  const rail = new RecordingRail();
  const workflow = withDurableExecution(
    fulfilmentWorkflow(rail, { journal, clock }, (context) => context.wait('pick', { seconds: 3_600 })),
  );
  const starts: DurableStart[] = [];
  let loseNextAnswer = false;
  const handler = startFulfilmentHandler({
    journal,
    functionName: 'fulfil:live',
    guardOptions: { clock },
    start: async (start) => {
      starts.push(start);
      const payload = start.payload as { orderId: string };
      const execution = await new LocalDurableTestRunner({ handlerFunction: workflow }).run({
        payload: { orderId: payload.orderId, amountCents: 500 },
      });
      if (execution.getStatus() !== 'SUCCEEDED') throw new Error(`execution ${execution.getStatus()}`);
      if (loseNextAnswer) {
        loseNextAnswer = false;
        throw new Error('socket hang up');
      }
      const record = await journal.get(requestPk('-', 'fulfil', payload.orderId));
      return { executionArn: record?.durableExecutionArn ?? 'none' };
    },
  });
  // The local start runs the whole execution (the runner skips its hour of waiting) inside the front door's invocation:
  // give that invocation the room, so Middy's timeoutEarly does not fire on the skipped hour.
  const post = (key: string, orderId: string) =>
    handler(httpEvent({ path: '/fulfilments', key, body: { orderId } }), lambdaContext(DAY_MS));
  return { rail, starts, post, loseNext: () => (loseNextAnswer = true) };
}

describe('the HTTP front door of a durable workflow', () => {
  it('answers 202 with the execution it started under a name derived from the key', async () => {
    const { rail, starts, post } = await frontDoor();

    const response = await post(randomUUID(), `order-${randomUUID()}`);

    expect(response.statusCode).toBe(202);
    const body = JSON.parse(response.body as string);
    expect(body.executionName).toMatch(/^[0-9a-f]{32}$/);
    expect(starts.map((s) => s.executionName)).toEqual([body.executionName]);
    expect(body.executionArn).toEqual(expect.any(String));
    expect(body.executionArn).not.toBe('none');
    expect(rail.charges).toHaveLength(1);
  });

  it('replays the 202 to a retry without starting anything', async () => {
    const { starts, post } = await frontDoor();
    const key = randomUUID();
    const orderId = `order-${randomUUID()}`;
    const first = await post(key, orderId);

    const retry = await post(key, orderId);

    expect(retry.statusCode).toBe(202);
    expect(retry.body).toBe(first.body);
    expect(retry.headers?.['Idempotent-Replayed']).toBe('true');
    expect(starts).toHaveLength(1);
  });

  it('starts again under the same name when the first answer was lost, so Lambda can return that execution', async () => {
    const { rail, starts, post, loseNext } = await frontDoor();
    const key = randomUUID();
    const orderId = `order-${randomUUID()}`;
    loseNext();
    await expect(post(key, orderId)).rejects.toThrow('socket hang up');

    const retry = await post(key, orderId);

    expect(retry.statusCode).toBe(202);
    expect(starts).toHaveLength(2);
    expect(starts[1].executionName).toBe(starts[0].executionName);
    expect(JSON.parse(retry.body as string).executionName).toBe(starts[0].executionName);
    // The second execution met the first one's completed record: the workflow charged once.
    expect(rail.charges).toHaveLength(1);
  });

  it('names different requests differently', async () => {
    const { starts, post } = await frontDoor();

    await post(randomUUID(), `order-${randomUUID()}`);
    await post(randomUUID(), `order-${randomUUID()}`);

    expect(new Set(starts.map((s) => s.executionName)).size).toBe(2);
  });
});

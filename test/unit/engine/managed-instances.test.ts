import middy from '@middy/core';
import { InvokeStore, InvokeStoreBase } from '@aws/lambda-invoke-store';
import { httpIdempotency, idempotencyOf, MemoryJournal, type LogSink, type MetricsSink } from '../../../src/index.js';
import { httpApiEvent, lambdaContext } from '../../../src/testing/index.js';
import { MEMORY_JOURNAL_TABLE } from '../../../src/entries/journal.js';

/*
 * Lambda Managed Instances run many invocations at once in one process: one middleware instance,
 * one journal, one logger and one metrics sink serve them all, and the runtime keeps each
 * invocation's request id and trace in its per-invocation store (an AsyncLocalStorage), setting no
 * `_X_AMZN_TRACE_ID`. These tests start invocations the way that runtime does and check that
 * nothing of one invocation reaches another.
 */

const INVOCATIONS = 40;
const KEYS = 20;
const ORDERS_TABLE = 'orders';

type LogLine = Record<string, unknown>;

function capturingLogger(lines: LogLine[]): LogSink {
  return {
    info: (_message: string, fields: LogLine) => void lines.push(fields),
    error: (_message: string, fields: LogLine) => void lines.push(fields),
  } as never;
}

function countingMetrics(counts: Map<string, number>): MetricsSink {
  return {
    singleMetric: () => ({
      addDimension: () => undefined,
      clearDimensions: () => undefined,
      clearDefaultDimensions: () => undefined,
      addMetric: (name: string) => void counts.set(name, (counts.get(name) ?? 0) + 1),
    }),
  } as never;
}

const byOrderId = (a: { orderId: string }, b: { orderId: string }) => a.orderId.localeCompare(b.orderId);

interface Invocation {
  readonly index: number;
  readonly key: string;
  readonly requestId: string;
  readonly traceId: string;
}

describe('one process serving concurrent invocations (Lambda Managed Instances)', () => {
  const savedEnv = { ...process.env };
  const journal = new MemoryJournal({ tableKeys: { [ORDERS_TABLE]: ['orderId'] } });
  const lines: LogLine[] = [];
  const metrics = new Map<string, number>();
  const executions: Array<{ key: string; requestId: string }> = [];
  const answers = new Map<number, any>();
  const invocations: Invocation[] = Array.from({ length: INVOCATIONS }, (_, index) => ({
    index,
    key: `order-${index % KEYS}`,
    requestId: `request-${index}`,
    traceId: `Root=1-6756c0de-${String(index).padStart(24, '0')};Parent=${String(index).padStart(16, '0')};Sampled=1`,
  }));

  beforeAll(async () => {
    process.env.AWS_LAMBDA_MAX_CONCURRENCY = '64';
    // Another invocation's trace, as a process-wide variable would hold it: it must never be logged.
    process.env._X_AMZN_TRACE_ID = 'Root=1-00000000-process-wide;Sampled=0';
    const store = await InvokeStore.getInstanceAsync(true);
    const handler = middy(async (event: { body?: string }, context: { awsRequestId: string }) => {
      const scope = idempotencyOf(context);
      const { orderId } = JSON.parse(event.body ?? '{}') as { orderId: string };
      // Invocations interleave at every await, as they do in one process.
      await new Promise((resolve) => setTimeout(resolve, (orderId.length * 7 + executions.length * 3) % 15));
      executions.push({ key: scope.key, requestId: context.awsRequestId });
      scope.stage({ Put: { TableName: ORDERS_TABLE, Item: { orderId, requestId: context.awsRequestId } } });
      scope.publish({ type: 'OrderAccepted', detail: { orderId, requestId: context.awsRequestId } });
      await new Promise((resolve) => setImmediate(resolve));
      return { statusCode: 201, body: JSON.stringify({ orderId, requestId: context.awsRequestId }) };
    }).use(httpIdempotency({ journal, logger: capturingLogger(lines), metrics: countingMetrics(metrics) }));

    await Promise.all(
      invocations.map((invocation) =>
        store.run(
          {
            [InvokeStoreBase.PROTECTED_KEYS.REQUEST_ID]: invocation.requestId,
            [InvokeStoreBase.PROTECTED_KEYS.X_RAY_TRACE_ID]: invocation.traceId,
          },
          async () => {
            const event = httpApiEvent({
              path: '/orders',
              idempotencyKey: invocation.key,
              body: { orderId: invocation.key },
            });
            // The runtime's context carries no trace of its own in this mode: the store holds it.
            const context = lambdaContext({ awsRequestId: invocation.requestId });
            answers.set(invocation.index, await handler(event as never, context as never));
          },
        ),
      ),
    );
  });

  afterAll(() => {
    process.env = savedEnv;
  });

  it('runs each key once', () => {
    expect(executions).toHaveLength(KEYS);
    expect(new Set(executions.map(({ key }) => key)).size).toBe(KEYS);
  });

  it("answers every invocation about its own key: the executing one with its own result, the other with the key's", () => {
    for (const invocation of invocations) {
      const answer = answers.get(invocation.index);
      const winner = executions.find(({ key }) => key === invocation.key)!;
      if (answer.statusCode === 201) {
        expect(JSON.parse(answer.body)).toEqual({ orderId: invocation.key, requestId: winner.requestId });
        if (winner.requestId !== invocation.requestId) expect(answer.headers['Idempotent-Replayed']).toBe('true');
      } else {
        expect(answer.statusCode).toBe(409);
        expect(winner.requestId).not.toBe(invocation.requestId);
      }
    }
  });

  it('commits each execution’s staged write and outbox event with its own values, and nothing else', () => {
    const orders = [...(journal.tables.get(ORDERS_TABLE)?.values() ?? [])];
    expect(orders).toHaveLength(KEYS);
    for (const { key, requestId } of executions) expect(orders).toContainEqual({ orderId: key, requestId });
    const outbox = [...(journal.tables.get(MEMORY_JOURNAL_TABLE)?.values() ?? [])].filter((item) =>
      String(item.pk).startsWith('outbox#'),
    );
    expect(outbox.map((item) => JSON.parse(String(item.detail))).sort(byOrderId)).toEqual(
      executions.map(({ key, requestId }) => ({ orderId: key, requestId })).sort(byOrderId),
    );
  });

  it('logs one line per invocation, each with its own request id and its own trace id', () => {
    expect(lines).toHaveLength(INVOCATIONS);
    const byRequest = new Map(lines.map((line) => [line.request_id, line]));
    for (const invocation of invocations) {
      expect(byRequest.get(invocation.requestId)?.trace_id).toBe(invocation.traceId);
    }
    expect(lines.map((line) => line.trace_id)).not.toContain(process.env._X_AMZN_TRACE_ID);
  });

  it('counts every attempt exactly once in the metrics', () => {
    expect(metrics.get('NewRequest')).toBe(KEYS);
    const others = (metrics.get('Replay') ?? 0) + (metrics.get('InProgressCollision') ?? 0);
    expect(others).toBe(INVOCATIONS - KEYS);
  });
});

/**
 * kinesisConsumer end to end: records put into a real Kinesis emulator (kinesalite), read from
 * its shards into Lambda events, guarded on DynamoDB Local.
 */
import type { KinesisClient } from '@aws-sdk/client-kinesis';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { idempotencyOf } from '../../src/engine/index.js';
import { kinesisConsumer, type KinesisConsumerRecord } from '../../src/streams/index.js';
import { MetricName } from '../../src/telemetry/index.js';
import { createTable } from '../support/dynamodb.js';
import { createStream, kinesisRecord, KinesisShardPoller, putJson, startKinesis } from '../support/kinesis.js';
import { lambdaContext } from '../support/lambda.js';
import { localJournal, metricCounter } from '../sqs/consumer-fixtures.js';
import { addToTotal, itemOf, streamLogger } from './stream-fixtures.js';

interface Order {
  readonly orderId: string;
  readonly amount: number;
}

/** A handler that records the order ids it ran for and fails the ones `fails` picks. */
function orderHandler(fails: (order: Order, attempt: number) => boolean = () => false) {
  const ran: string[] = [];
  const attempts = new Map<string, number>();
  const handler = async (record: KinesisConsumerRecord<Order>) => {
    const attempt = (attempts.get(record.data.orderId) ?? 0) + 1;
    attempts.set(record.data.orderId, attempt);
    if (fails(record.data, attempt)) throw new Error(`handler failed on ${record.data.orderId}`);
    ran.push(record.data.orderId);
  };
  return { ran, handler };
}

const orders = (...ids: string[]): Order[] => ids.map((orderId) => ({ orderId, amount: 10 }));

describe('kinesisConsumer on kinesalite and DynamoDB Local', () => {
  let kinesis: KinesisClient;
  let stopKinesis: () => Promise<void>;
  let metrics: ReturnType<typeof metricCounter>;

  beforeAll(async () => {
    ({ client: kinesis, stop: stopKinesis } = await startKinesis());
  });
  afterAll(() => stopKinesis());
  beforeEach(() => {
    metrics = metricCounter();
  });
  afterEach(() => metrics.restore());

  async function streamOf(values: unknown[]): Promise<KinesisShardPoller> {
    const streamName = await createStream(kinesis);
    for (const value of values) await putJson(kinesis, streamName, value);
    return new KinesisShardPoller(kinesis, streamName);
  }

  it('runs a shard batch in order, and a redelivered batch runs nothing again', async () => {
    const { journal } = await localJournal();
    const poller = await streamOf(orders('o1', 'o2', 'o3'));
    const { ran, handler } = orderHandler();
    const consumer = kinesisConsumer(handler, { journal, consumer: 'orders' });
    const event = await poller.read();

    const first = await consumer(event, lambdaContext());
    const redelivered = await consumer(event, lambdaContext());

    expect(event.Records).toHaveLength(3);
    expect(first.batchItemFailures).toEqual([]);
    expect(redelivered.batchItemFailures).toEqual([]);
    expect(ran).toEqual(['o1', 'o2', 'o3']);
    expect(metrics.count(MetricName.duplicateSuppressed)).toBe(3);
    expect(metrics.dimensions()).toContainEqual(['Consumer', 'orders']);
  });

  it('stops at a failed record: its sequence number is the one failure and the rest waits', async () => {
    const { journal } = await localJournal();
    const poller = await streamOf(orders('o1', 'o2', 'o3', 'o4', 'o5'));
    const { ran, handler } = orderHandler((order, attempt) => order.orderId === 'o3' && attempt === 1);
    const { logger, lines } = streamLogger();
    const consumer = kinesisConsumer(handler, { journal, consumer: 'orders', logger });

    const { event, response } = await poller.deliver((e) => consumer(e, lambdaContext()));

    expect(response?.batchItemFailures).toEqual([{ itemIdentifier: event.Records[2].kinesis.sequenceNumber }]);
    expect(ran).toEqual(['o1', 'o2']);
    expect(lines('kinesis record reported as failed')).toEqual([
      expect.objectContaining({
        consumer: 'orders',
        sequence_number: event.Records[2].kinesis.sequenceNumber,
        idempotency_status: 'released',
        reason: 'handler failed on o3',
      }),
    ]);
    expect(lines('kinesis records after a failure in their shard left for the redelivery')).toEqual([
      expect.objectContaining({ shard_id: 'shardId-000000000000', unprocessed: 2 }),
    ]);
  });

  it('resumes at the failed record and completes the shard, running each record once', async () => {
    const { journal } = await localJournal();
    const poller = await streamOf(orders('o1', 'o2', 'o3', 'o4', 'o5'));
    const { ran, handler } = orderHandler((order, attempt) => order.orderId === 'o3' && attempt === 1);
    const consumer = kinesisConsumer(handler, { journal, consumer: 'orders' });

    await poller.deliver((event) => consumer(event, lambdaContext()));
    const resumed = await poller.deliver((event) => consumer(event, lambdaContext()));
    const drained = await poller.read();

    expect(
      resumed.event.Records.map((record) => JSON.parse(Buffer.from(record.kinesis.data, 'base64').toString())),
    ).toEqual(orders('o3', 'o4', 'o5'));
    expect(resumed.response?.batchItemFailures).toEqual([]);
    expect(drained.Records).toEqual([]);
    expect(ran).toEqual(['o1', 'o2', 'o3', 'o4', 'o5']);
  });

  it('skips what completed when Lambda sends the whole batch again after a failure', async () => {
    const { journal } = await localJournal();
    const poller = await streamOf(orders('o1', 'o2', 'o3'));
    const { ran, handler } = orderHandler((order, attempt) => order.orderId === 'o2' && attempt === 1);
    const consumer = kinesisConsumer(handler, { journal, consumer: 'orders' });
    const event = await poller.read();

    await consumer(event, lambdaContext());
    const retried = await consumer(event, lambdaContext());

    expect(retried.batchItemFailures).toEqual([]);
    expect(ran).toEqual(['o1', 'o2', 'o3']);
    expect(metrics.count(MetricName.duplicateSuppressed)).toBe(1);
  });

  it("dedupes a producer's retry, a new record with a new sequence number, by the order id in the data", async () => {
    const { journal } = await localJournal();
    const poller = await streamOf([...orders('o1', 'o2'), ...orders('o1')]);
    const { ran, handler } = orderHandler();
    const consumer = kinesisConsumer(handler, {
      journal,
      consumer: 'orders',
      messageId: (record) => record.data.orderId,
    });

    const { event, response } = await poller.deliver((e) => consumer(e, lambdaContext()));

    expect(new Set(event.Records.map((record) => record.kinesis.sequenceNumber)).size).toBe(3);
    expect(response?.batchItemFailures).toEqual([]);
    expect(ran).toEqual(['o1', 'o2']);
    expect(metrics.count(MetricName.duplicateSuppressed)).toBe(1);
  });

  it('runs the retry of a producer again under the default message id, the eventID', async () => {
    const { journal } = await localJournal();
    const poller = await streamOf(orders('o1', 'o1'));
    const { ran, handler } = orderHandler();

    await poller.deliver((event) => kinesisConsumer(handler, { journal, consumer: 'orders' })(event));

    expect(ran).toEqual(['o1', 'o1']);
  });

  it('runs each order once across two shards whose concurrent batches carry the same orders', async () => {
    // A parallelization factor above 1 (or a producer retry landing on another shard) puts one
    // order in two batches at once: the batch that meets it in progress stops there and retries.
    const { journal } = await localJournal();
    const streamName = await createStream(kinesis, 2);
    const shards = new Set<string>();
    for (const [index, order] of [...orders('a', 'b', 'c'), ...orders('a', 'b', 'c')].entries()) {
      const partitionKey = index < 3 ? 'left' : 'right';
      shards.add((await putJson(kinesis, streamName, order, partitionKey)).shardId);
    }
    const pollers = [...shards].map((shardId) => new KinesisShardPoller(kinesis, streamName, shardId));
    const runs = new Map<string, number>();
    const consumer = kinesisConsumer<Order>(
      async (record) => {
        runs.set(record.data.orderId, (runs.get(record.data.orderId) ?? 0) + 1);
        await new Promise((resolve) => setTimeout(resolve, 50));
      },
      { journal, consumer: 'orders', messageId: (record) => record.data.orderId },
    );

    expect(pollers).toHaveLength(2);
    const rounds: number[] = [];
    for (let round = 0; round < 10; round++) {
      const responses = await Promise.all(pollers.map((poller) => poller.deliver((e) => consumer(e, lambdaContext()))));
      const failures = responses.reduce((sum, { response }) => sum + (response?.batchItemFailures.length ?? 0), 0);
      rounds.push(failures);
      if (responses.every(({ event }) => event.Records.length === 0)) break;
    }

    expect(Object.fromEntries(runs)).toEqual({ a: 1, b: 1, c: 1 });
    expect(rounds[0]).toBeGreaterThan(0);
    expect(rounds.at(-1)).toBe(0);
    for (const poller of pollers) expect((await poller.read()).Records).toEqual([]);
  });

  it("commits staged writes with the record under effects: 'staged-only', once per message", async () => {
    const { client, journal } = await localJournal();
    const table = await createTable(client, 'totals');
    const poller = await streamOf([
      { orderId: 'o1', amount: 7 },
      { orderId: 'o2', amount: 5 },
    ]);
    const consumer = kinesisConsumer<Order>(
      async (record, context) => {
        idempotencyOf(context).stage(addToTotal(table, 'all', record.data.amount));
      },
      { journal, consumer: 'totals', effects: 'staged-only' },
    );
    const event = await poller.read();

    const first = await consumer(event, lambdaContext());
    const second = await consumer(event, lambdaContext());

    expect([first, second]).toEqual([{ batchItemFailures: [] }, { batchItemFailures: [] }]);

    expect(await itemOf(client, table, 'all')).toEqual({ pk: 'all', total: 12, projections: 2 });
    expect(metrics.count(MetricName.duplicateSuppressed)).toBe(2);
  });
});

describe('kinesisConsumer on events built like Lambda', () => {
  it("runs the sample event's producer retry once under the order id", async () => {
    const { journal } = await localJournal();
    const sample = JSON.parse(
      readFileSync(join(__dirname, '../../events/kinesis-order-events-producer-retry.json'), 'utf8'),
    );
    const ran: string[] = [];

    const response = await kinesisConsumer<Order>(async (record) => void ran.push(record.data.orderId), {
      journal,
      consumer: 'orders',
      messageId: (record) => record.data.orderId,
    })(sample);

    expect(response.batchItemFailures).toEqual([]);
    expect(ran).toEqual(['ord-1001', 'ord-1002']);
  });

  it('reports a record whose data is not JSON where the data is read, and runs nothing after it', async () => {
    const { journal } = await localJournal();
    const { logger, lines } = streamLogger();
    const ran: unknown[] = [];
    const records = [kinesisRecord({ orderId: 'o1' }), kinesisRecord('{"orderId":'), kinesisRecord({ orderId: 'o3' })];
    const options = { journal, consumer: 'orders', logger };

    const byHandler = await kinesisConsumer(
      async (record) => void ran.push(record.data),
      options,
    )({ Records: records });
    const byMessageId = await kinesisConsumer(async (record) => void ran.push(record.data), {
      ...options,
      consumer: 'orders-by-id',
      messageId: (record) => (record.data as { orderId: string }).orderId,
    })({ Records: records });

    expect(byHandler.batchItemFailures).toEqual([{ itemIdentifier: records[1].kinesis.sequenceNumber }]);
    expect(byMessageId.batchItemFailures).toEqual([{ itemIdentifier: records[1].kinesis.sequenceNumber }]);
    expect(ran).toEqual([{ orderId: 'o1' }, { orderId: 'o1' }]);
    expect(lines('kinesis record reported as failed')).toEqual([
      expect.objectContaining({ idempotency_status: 'released', reason: expect.stringContaining('not JSON') }),
      expect.objectContaining({ idempotency_status: 'invalid_key', reason: expect.stringContaining('not JSON') }),
    ]);
  });

  it('never decodes the data of a handler that reads only the Lambda fields', async () => {
    const { journal } = await localJournal();
    const seen: string[] = [];
    const record = kinesisRecord('not json at all');

    const response = await kinesisConsumer(async (r) => void seen.push(r.kinesis.partitionKey), {
      journal,
      consumer: 'raw',
    })({ Records: [record] });

    expect(response.batchItemFailures).toEqual([]);
    expect(seen).toEqual(['p']);
  });

  it("hands text or bytes over when dataFormat says so, and the record's Lambda fields unchanged", async () => {
    const { journal } = await localJournal();
    const seen: unknown[] = [];
    const record = kinesisRecord('plain text');

    await kinesisConsumer(async (r) => void seen.push(r.data, r.kinesis.data), {
      journal,
      consumer: 'text',
      dataFormat: 'text',
    })({ Records: [record] });
    await kinesisConsumer(async (r) => void seen.push(Buffer.isBuffer(r.data)), {
      journal,
      consumer: 'bytes',
      dataFormat: 'bytes',
    })({ Records: [record] });

    expect(seen).toEqual(['plain text', record.kinesis.data, true]);
  });

  it('stops at a record another attempt holds, reporting it as in progress', async () => {
    const { journal } = await localJournal();
    const { logger, lines } = streamLogger();
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const ran: string[] = [];
    const consumer = kinesisConsumer<Order>(
      async (record) => {
        if (record.data.orderId === 'slow') await gate;
        ran.push(record.data.orderId);
      },
      { journal, consumer: 'orders', messageId: (record) => record.data.orderId, logger },
    );
    const held = consumer({ Records: [kinesisRecord({ orderId: 'slow' })] });
    await new Promise((resolve) => setTimeout(resolve, 200));
    const duplicate = kinesisRecord({ orderId: 'slow' });

    const response = await consumer({ Records: [duplicate, kinesisRecord({ orderId: 'after' })] });
    release();
    await held;

    expect(response.batchItemFailures).toEqual([{ itemIdentifier: duplicate.kinesis.sequenceNumber }]);
    expect(ran).toEqual(['slow']);
    expect(lines('kinesis record reported as failed')).toEqual([
      expect.objectContaining({ idempotency_status: 'in_progress', error_code: 'request-in-progress' }),
    ]);
  });

  it('stops at a record that needs review after its effect began, and reruns nothing', async () => {
    const { journal } = await localJournal();
    let nowEpochMs = Date.now();
    const runs: string[] = [];
    const consumer = kinesisConsumer<Order>(
      async (record, context) => {
        runs.push(record.data.orderId);
        await idempotencyOf(context).beginEffect('charge');
        throw new Error('card network timed out');
      },
      { journal, consumer: 'charges', messageId: (r) => r.data.orderId, clock: () => nowEpochMs, leaseMs: 1_000 },
    );
    const record = kinesisRecord({ orderId: 'o1' });

    await consumer({ Records: [record] });
    nowEpochMs += 5_000;
    const again = await consumer({ Records: [record, kinesisRecord({ orderId: 'o2' })] });

    expect(again.batchItemFailures).toEqual([{ itemIdentifier: record.kinesis.sequenceNumber }]);
    expect(runs).toEqual(['o1']);
  });

  it('lets a recover hook settle a record whose effect began', async () => {
    const { journal } = await localJournal();
    let nowEpochMs = Date.now();
    let fail = true;
    const consumer = kinesisConsumer<Order>(
      async (_record, context) => {
        await idempotencyOf(context).beginEffect('charge');
        if (fail) throw new Error('card network timed out');
      },
      {
        journal,
        consumer: 'charges',
        clock: () => nowEpochMs,
        leaseMs: 1_000,
        recover: async () => ({ outcome: 'completed', response: undefined }),
      },
    );
    const record = kinesisRecord({ orderId: 'o1' });

    const first = await consumer({ Records: [record] });
    fail = false;
    nowEpochMs += 5_000;
    const recovered = await consumer({ Records: [record] });

    expect(first.batchItemFailures).toHaveLength(1);
    expect(recovered.batchItemFailures).toEqual([]);
  });
});

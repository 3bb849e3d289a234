import { GetItemCommand } from '@aws-sdk/client-dynamodb';
import { sha256Hex } from '../../src/core/index.js';
import { idempotencyOf } from '../../src/engine/index.js';
import { messagePk } from '../../src/journal/index.js';
import { fromBodyField, fromMessageAttribute, sqsConsumer } from '../../src/sqs/index.js';
import { MetricName } from '../../src/telemetry/index.js';
import { createTable } from '../support/dynamodb.js';
import { lambdaContext } from '../support/lambda.js';
import {
  createQueue,
  EventSourceMapping,
  localSqsClient,
  receiveExactly,
  sendMessage,
  sqsRecord,
  toSqsRecord,
} from '../support/sqs.js';
import { capturedLogger, localJournal, metricCounter, recordingHandler } from './consumer-fixtures.js';

const order = (id: string) => JSON.stringify({ id, sku: 'sku-1' });

describe('sqsConsumer on DynamoDB Local and the SQS emulator', () => {
  let metrics: ReturnType<typeof metricCounter>;
  beforeEach(() => {
    metrics = metricCounter();
  });
  afterEach(() => metrics.restore());

  it('processes 6, suppresses 3 duplicates and reports 1 malformed record in a batch of 10', async () => {
    const { journal } = await localJournal();
    const sqs = localSqsClient();
    const queue = await createQueue(sqs);
    const { handled, handler } = recordingHandler();
    const { logger, reported } = capturedLogger();
    const consumer = sqsConsumer(handler, { journal, consumer: 'orders', messageId: fromBodyField('id'), logger });
    for (const id of ['d1', 'd2', 'd3']) await sendMessage(sqs, queue.url, order(id));
    await new EventSourceMapping(sqs, queue, consumer).deliverOnce();
    for (const id of ['d1', 'd2', 'd3', 'n1', 'n2', 'n3', 'n4', 'n5', 'n6'])
      await sendMessage(sqs, queue.url, order(id));
    const malformedId = await sendMessage(sqs, queue.url, '{"id": "n7"');
    const batch = await receiveExactly(sqs, queue.url, 10);
    handled.length = 0;
    metrics.restore();
    metrics = metricCounter();

    const response = await consumer({ Records: batch.map((message) => toSqsRecord(message, queue)) }, lambdaContext());

    expect(handled.sort()).toEqual(['n1', 'n2', 'n3', 'n4', 'n5', 'n6'].map(order).sort());
    expect(metrics.count(MetricName.duplicateSuppressed)).toBe(3);
    expect(response.batchItemFailures).toEqual([{ itemIdentifier: malformedId }]);
    expect(reported()).toEqual([
      expect.objectContaining({
        message_id: malformedId,
        idempotency_status: 'invalid_key',
        reason: expect.stringContaining('not JSON'),
      }),
    ]);
  });

  it('counts suppressed duplicates under the Consumer dimension', async () => {
    const { journal } = await localJournal();
    const consumer = sqsConsumer(recordingHandler().handler, { journal, consumer: 'orders' });
    const record = sqsRecord(order('a'));
    await consumer({ Records: [record] });

    await consumer({ Records: [record] });

    expect(metrics.count(MetricName.duplicateSuppressed)).toBe(1);
    expect(metrics.dimensions()).toContainEqual(['Consumer', 'orders']);
  });

  it('reports a record another attempt still holds, by its message id', async () => {
    const { journal } = await localJournal();
    const held = sqsRecord(order('held'));
    await journal.reserve({
      pk: messagePk('orders', held.messageId),
      fingerprint: sha256Hex(held.body),
      leaseMs: 60_000,
      ttlSeconds: 60,
    });
    const { handled, handler } = recordingHandler();
    const other = sqsRecord(order('other'));

    const response = await sqsConsumer(handler, { journal, consumer: 'orders' })(
      { Records: [held, other] },
      lambdaContext(),
    );

    expect(response.batchItemFailures).toEqual([{ itemIdentifier: held.messageId }]);
    expect(handled).toEqual([other.body]);
  });

  it('reports a failed record, keeps the rest, and runs it again when the queue redelivers it', async () => {
    const { journal } = await localJournal();
    const sqs = localSqsClient();
    const queue = await createQueue(sqs, { visibilityTimeoutSeconds: 1 });
    const { handled, handler } = recordingHandler((record, attempt) => record.body === order('flaky') && attempt === 1);
    const mapping = new EventSourceMapping(sqs, queue, sqsConsumer(handler, { journal, consumer: 'orders' }));
    const flakyId = await sendMessage(sqs, queue.url, order('flaky'));
    await sendMessage(sqs, queue.url, order('steady'));

    const deliveries = await mapping.drain();

    expect(deliveries[0].failed).toEqual([flakyId]);
    expect(handled.sort()).toEqual([order('flaky'), order('steady')].sort());
  });

  it('refuses a message id seen before with a different body', async () => {
    const { journal } = await localJournal();
    const consumer = sqsConsumer(recordingHandler().handler, {
      journal,
      consumer: 'orders',
      messageId: fromBodyField('id'),
    });
    await consumer({ Records: [sqsRecord(JSON.stringify({ id: 'x', quantity: 1 }))] });
    const changed = sqsRecord(JSON.stringify({ id: 'x', quantity: 2 }));

    const response = await consumer({ Records: [changed] });

    expect(response.batchItemFailures).toEqual([{ itemIdentifier: changed.messageId }]);
  });

  it('reports a record without the message attribute that carries its id', async () => {
    const { journal } = await localJournal();
    const { logger, reported } = capturedLogger();
    const record = sqsRecord(order('a'));

    const response = await sqsConsumer(recordingHandler().handler, {
      journal,
      consumer: 'orders',
      messageId: fromMessageAttribute('eventId'),
      logger,
    })({ Records: [record] });

    expect(response.batchItemFailures).toEqual([{ itemIdentifier: record.messageId }]);
    expect(reported()[0]).toMatchObject({ idempotency_status: 'missing_key', error_code: 'idempotency-key-missing' });
  });

  it('commits a staged write in one transaction with the inbox record', async () => {
    const { journal, client } = await localJournal();
    const ledger = await createTable(client, 'ledger');
    const consumer = sqsConsumer(
      async (record, context) => {
        idempotencyOf(context).stage({
          Put: {
            TableName: ledger,
            Item: { pk: JSON.parse(record.body).id },
            ConditionExpression: 'attribute_not_exists(pk)',
          },
        });
      },
      { journal, consumer: 'ledger', messageId: fromBodyField('id') },
    );

    const first = await consumer({ Records: [sqsRecord(order('a'))] });
    const again = await consumer({ Records: [sqsRecord(order('a'))] });

    expect([first.batchItemFailures, again.batchItemFailures]).toEqual([[], []]);
    expect((await client.send(new GetItemCommand({ TableName: ledger, Key: { pk: { S: 'a' } } }))).Item).toBeDefined();
    expect((await journal.get(messagePk('ledger', 'a')))?.status).toBe('COMPLETED');
  });

  it('reports a record whose staged write fails its condition and leaves no inbox record', async () => {
    const { journal, client } = await localJournal();
    const stock = await createTable(client, 'stock', 'sku');
    const consumer = sqsConsumer(
      async (_record, context) => {
        idempotencyOf(context).stage({
          Update: {
            TableName: stock,
            Key: { sku: 'none' },
            UpdateExpression: 'SET available = available - :one',
            ConditionExpression: 'available >= :one',
            ExpressionAttributeValues: { ':one': 1 },
          },
        });
      },
      { journal, consumer: 'stock' },
    );
    const record = sqsRecord(order('a'));

    const response = await consumer({ Records: [record] });

    expect(response.batchItemFailures).toEqual([{ itemIdentifier: record.messageId }]);
    expect(await journal.get(messagePk('stock', record.messageId))).toBeUndefined();
  });

  it('gives each record its own scope when records run side by side', async () => {
    const { journal } = await localJournal();
    const seen: Array<[string, string]> = [];
    let started = 0;
    let allStarted!: () => void;
    const everyoneIn = new Promise<void>((resolve) => (allStarted = resolve));
    const consumer = sqsConsumer(
      async (record, context) => {
        if (++started === 5) allStarted();
        // No handler finishes before all five run at once.
        await Promise.race([
          everyoneIn,
          new Promise((_, reject) => setTimeout(() => reject(new Error('records ran one by one')), 5_000)),
        ]);
        seen.push([record.messageId, idempotencyOf(context).key]);
      },
      { journal, consumer: 'parallel', concurrency: 5 },
    );
    const records = Array.from({ length: 5 }, (_, i) => sqsRecord(order(String(i))));

    const response = await consumer({ Records: records }, lambdaContext());

    expect(response.batchItemFailures).toEqual([]);
    expect(seen).toHaveLength(5);
    for (const [messageId, key] of seen) expect(key).toBe(messageId);
  });
});

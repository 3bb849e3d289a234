import { Metrics } from '@aws-lambda-powertools/metrics';
import { GetItemCommand, PutItemCommand } from '@aws-sdk/client-dynamodb';
import middy from '@middy/core';
import type { APIGatewayProxyEventV2, Context, SQSRecord } from 'aws-lambda';
import { idempotencyOf } from '../../src/engine/index.js';
import { httpIdempotency } from '../../src/http/index.js';
import { DynamoDBJournal } from '../../src/journal/index.js';
import { OUTBOX_EVENT_ID_ATTRIBUTE, outboxDispatcher, type OutboxMessage } from '../../src/outbox/index.js';
import { fromMessageAttribute, sqsConsumer } from '../../src/sqs/index.js';
import { MetricName } from '../../src/telemetry/index.js';
import { createJournalTable, createTable, localClient } from '../support/dynamodb.js';
import { httpEvent, lambdaContext } from '../support/lambda.js';
import { createQueue, EventSourceMapping, localSqsClient, queueDepth } from '../support/sqs.js';
import { localStreamPoller } from '../support/streams.js';

interface OrderItem {
  readonly sku: string;
  readonly quantity: number;
}

/** The whole service on local infrastructure: payments API, journal stream, queue, stock consumer. */
async function paymentsService() {
  const dynamodb = localClient();
  const journalTable = await createJournalTable(dynamodb);
  const stockTable = await createTable(dynamodb, 'stock', 'sku');
  await dynamodb.send(
    new PutItemCommand({ TableName: stockTable, Item: { sku: { S: 'sku-1' }, available: { N: '10' } } }),
  );
  const journal = new DynamoDBJournal({ tableName: journalTable, client: dynamodb });
  const sqs = localSqsClient();
  const queue = await createQueue(sqs, { visibilityTimeoutSeconds: 1 });

  const createPayment = middy(async (event: APIGatewayProxyEventV2, context: Context) => {
    const { items } = JSON.parse(event.body!) as { items: OrderItem[] };
    const guard = idempotencyOf(context);
    const paymentId = `pay_${guard.deriveKey('payment').slice(0, 12)}`;
    guard.publish({ type: 'order.confirmed', detail: { paymentId, items } });
    return { statusCode: 201, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ paymentId }) };
  }).use(httpIdempotency({ journal }));

  const stockHandlerRuns: string[] = [];
  const reserveStock = async (record: SQSRecord, context: Context) => {
    const message = JSON.parse(record.body) as OutboxMessage;
    stockHandlerRuns.push(message.eventId);
    for (const item of (message.detail as { items: OrderItem[] }).items) {
      idempotencyOf(context).stage({
        Update: {
          TableName: stockTable,
          Key: { sku: item.sku },
          UpdateExpression: 'SET available = available - :quantity',
          ConditionExpression: 'available >= :quantity',
          ExpressionAttributeValues: { ':quantity': item.quantity },
        },
      });
    }
  };
  const consumer = sqsConsumer(reserveStock, {
    journal,
    consumer: 'order-events',
    messageId: fromMessageAttribute(OUTBOX_EVENT_ID_ATTRIBUTE),
  });

  return {
    post: (key: string, body: unknown) =>
      createPayment(httpEvent({ key, body }), lambdaContext()) as Promise<{
        statusCode: number;
        headers: Record<string, string>;
        body: string;
      }>,
    stream: localStreamPoller(journalTable),
    dispatch: outboxDispatcher({ queueUrl: queue.url, client: sqs }),
    mapping: new EventSourceMapping(sqs, queue, (event) => consumer(event, lambdaContext())),
    queueDepth: () => queueDepth(sqs, queue.url),
    stockHandlerRuns,
    available: async () =>
      Number(
        (
          await dynamodb.send(
            new GetItemCommand({ TableName: stockTable, Key: { sku: { S: 'sku-1' } }, ConsistentRead: true }),
          )
        ).Item!.available.N,
      ),
  };
}

describe('payment → outbox → stream → queue → stock consumer', () => {
  it('takes stock exactly once through dispatch retries, a consumer crash and HTTP retries', async () => {
    const service = await paymentsService();
    const suppressed = jest.spyOn(Metrics.prototype, 'addMetric').mockImplementation(function (this: Metrics) {
      return this;
    });
    const order = { items: [{ sku: 'sku-1', quantity: 3 }] };

    const created = await service.post('pay-key-1', order);
    // (a) the dispatcher runs twice over the same stream records, as a stream retry would.
    const streamEvent = await service.stream.read();
    const firstDispatch = await service.dispatch(streamEvent);
    const secondDispatch = await service.dispatch(streamEvent);
    service.stream.acknowledge(streamEvent, secondDispatch);
    // (b) the consumer commits its stock change, then its container dies before SQS deletes the messages.
    const crashed = await service.mapping.deliverOnce({ crashAfterInvoke: true });
    const afterCrash = await service.available();
    // (c) the client retries the payment three times.
    const retries = [
      await service.post('pay-key-1', order),
      await service.post('pay-key-1', order),
      await service.post('pay-key-1', order),
    ];
    const laterStream = await service.stream.deliver(service.dispatch);
    // The messages reappear after the 1 s visibility timeout and are suppressed as duplicates.
    const redeliveries = await service.mapping.drain();

    expect(created.statusCode).toBe(201);
    expect([firstDispatch, secondDispatch]).toEqual([{ batchItemFailures: [] }, { batchItemFailures: [] }]);
    expect(crashed).toMatchObject({ received: 2, deleted: 0 });
    expect(afterCrash).toBe(7);
    expect(retries.map((retry) => [retry.statusCode, retry.body, retry.headers['Idempotent-Replayed']])).toEqual(
      Array(3).fill([201, created.body, 'true']),
    );
    // No new outbox events: only the dispatcher's own MODIFY that starts each sent item's TTL.
    const laterOutbox = laterStream.event.Records.filter((record) =>
      record.dynamodb?.NewImage?.pk?.S?.startsWith('outbox#'),
    );
    expect(laterOutbox.filter((record) => record.eventName === 'INSERT')).toEqual([]);
    expect(
      laterOutbox.every(
        (record) => record.dynamodb?.NewImage?.expiresAt?.N && record.dynamodb?.NewImage?.dispatchedAt?.N,
      ),
    ).toBe(true);
    expect(redeliveries.reduce((sum, delivery) => sum + delivery.deleted, 0)).toBe(2);
    expect(await service.available()).toBe(7);
    expect(service.stockHandlerRuns).toHaveLength(1);
    expect(await service.queueDepth()).toBe(0);
    expect(suppressed.mock.calls.filter((call) => call[0] === MetricName.duplicateSuppressed)).toHaveLength(3);
    suppressed.mockRestore();
  });
});

/**
 * dynamodbStreamConsumer end to end: changes written to a DynamoDB Local table, read from its
 * stream into Lambda events by the local poller, projected into a read model exactly once.
 */
import { CreateTableCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import { randomUUID } from 'node:crypto';
import { RequestInvalidError } from '../../src/core/index.js';
import { idempotencyOf } from '../../src/engine/index.js';
import { dynamodbStreamConsumer, type DynamoDBStreamConsumerRecord } from '../../src/streams/index.js';
import { MetricName } from '../../src/telemetry/index.js';
import { createTable } from '../support/dynamodb.js';
import { lambdaContext } from '../support/lambda.js';
import { localStreamPoller } from '../support/streams.js';
import { localJournal, metricCounter } from '../sqs/consumer-fixtures.js';
import { addToTotal, itemOf, streamLogger } from './stream-fixtures.js';

interface Payment {
  readonly pk: string;
  readonly amount: number;
  readonly status: string;
}

/** A payments table whose stream carries old and new images. */
async function paymentsTable(client: DynamoDBClient): Promise<string> {
  const tableName = `payments-${randomUUID().slice(0, 8)}`;
  await client.send(
    new CreateTableCommand({
      TableName: tableName,
      AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }],
      KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
      BillingMode: 'PAY_PER_REQUEST',
      StreamSpecification: { StreamEnabled: true, StreamViewType: 'NEW_AND_OLD_IMAGES' },
    }),
  );
  return tableName;
}

async function pay(client: DynamoDBClient, table: string, ...payments: Payment[]): Promise<void> {
  const doc = DynamoDBDocumentClient.from(client);
  for (const payment of payments) await doc.send(new PutCommand({ TableName: table, Item: payment }));
}

const captured = (id: string, amount: number): Payment => ({ pk: id, amount, status: 'captured' });

/** The read model projection: every new payment adds its amount to the total, in one transaction with the record. */
function projection(readModel: string, fails: (payment: Payment) => boolean = () => false) {
  const projected: string[] = [];
  const handler = async (record: DynamoDBStreamConsumerRecord<Payment>, context: object) => {
    if (record.eventName !== 'INSERT' || !record.newImage) return;
    if (fails(record.newImage)) throw new Error(`projection failed on ${record.newImage.pk}`);
    projected.push(record.newImage.pk);
    idempotencyOf(context).stage(addToTotal(readModel, 'total', record.newImage.amount));
  };
  return { projected, handler };
}

describe('dynamodbStreamConsumer on DynamoDB Local streams', () => {
  let metrics: ReturnType<typeof metricCounter>;
  beforeEach(() => {
    metrics = metricCounter();
  });
  afterEach(() => metrics.restore());

  it('projects each change once, whatever the redeliveries', async () => {
    const { client, journal } = await localJournal();
    const [payments, readModel] = await Promise.all([paymentsTable(client), createTable(client, 'read-model')]);
    await pay(client, payments, captured('p1', 10), captured('p2', 20), captured('p3', 30));
    const poller = localStreamPoller(payments);
    const { projected, handler } = projection(readModel);
    const consumer = dynamodbStreamConsumer(handler, { journal, consumer: 'payments-read-model' });
    const event = await poller.read();

    const first = await consumer(event, lambdaContext());
    const redelivered = await consumer(event, lambdaContext());

    expect(event.Records).toHaveLength(3);
    expect([first, redelivered]).toEqual([{ batchItemFailures: [] }, { batchItemFailures: [] }]);
    expect(projected).toEqual(['p1', 'p2', 'p3']);
    expect(await itemOf(client, readModel, 'total')).toEqual({ pk: 'total', total: 60, projections: 3 });
    expect(metrics.count(MetricName.duplicateSuppressed)).toBe(3);
    expect(metrics.dimensions()).toContainEqual(['Consumer', 'payments-read-model']);
  });

  it('stops at a failed change and resumes there through the poller, projecting each change once', async () => {
    const { client, journal } = await localJournal();
    const [payments, readModel] = await Promise.all([paymentsTable(client), createTable(client, 'read-model')]);
    await pay(client, payments, captured('p1', 10), captured('p2', 20), captured('p3', 30), captured('p4', 40));
    const poller = localStreamPoller(payments);
    let outage = true;
    const { projected, handler } = projection(readModel, (payment) => outage && payment.pk === 'p2');
    const { logger, lines } = streamLogger();
    const consumer = dynamodbStreamConsumer(handler, { journal, consumer: 'payments-read-model', logger });

    const failed = await poller.deliver((event) => consumer(event, lambdaContext()));
    outage = false;
    const resumed = await poller.deliver((event) => consumer(event, lambdaContext()));

    const second = failed.event.Records[1].dynamodb!.SequenceNumber!;
    expect(failed.response?.batchItemFailures).toEqual([{ itemIdentifier: second }]);
    expect(lines('dynamodb stream record reported as failed')).toEqual([
      expect.objectContaining({ sequence_number: second, idempotency_status: 'released' }),
    ]);
    expect(resumed.event.Records[0].dynamodb?.SequenceNumber).toBe(second);
    expect(resumed.response?.batchItemFailures).toEqual([]);
    expect(projected).toEqual(['p1', 'p2', 'p3', 'p4']);
    expect(await itemOf(client, readModel, 'total')).toEqual({ pk: 'total', total: 100, projections: 4 });
  });

  it('unmarshals keys and both images, and tells the kinds of change apart', async () => {
    const { client, journal } = await localJournal();
    const payments = await paymentsTable(client);
    const doc = DynamoDBDocumentClient.from(client);
    await pay(client, payments, captured('p1', 10), { pk: 'p1', amount: 10, status: 'refunded' });
    await doc.send(new DeleteCommand({ TableName: payments, Key: { pk: 'p1' } }));
    const seen: unknown[] = [];
    const consumer = dynamodbStreamConsumer<Payment>(
      async (record) =>
        void seen.push({
          eventName: record.eventName,
          keys: record.keys,
          old: record.oldImage?.status,
          new: record.newImage?.status,
        }),
      { journal, consumer: 'audit' },
    );

    await localStreamPoller(payments).deliver((event) => consumer(event));

    expect(seen).toEqual([
      { eventName: 'INSERT', keys: { pk: 'p1' }, old: undefined, new: 'captured' },
      { eventName: 'MODIFY', keys: { pk: 'p1' }, old: 'captured', new: 'refunded' },
      { eventName: 'REMOVE', keys: { pk: 'p1' }, old: 'refunded', new: undefined },
    ]);
  });

  it('counts a change once under a payload id, even when it reaches the consumer as two records', async () => {
    // Two tables feeding one consumer (a migration, a replica) carry the same payment under two eventIDs.
    const { client, journal } = await localJournal();
    const [left, right, readModel] = await Promise.all([
      paymentsTable(client),
      paymentsTable(client),
      createTable(client, 'read-model'),
    ]);
    await pay(client, left, captured('p1', 10));
    await pay(client, right, captured('p1', 10));
    const { projected, handler } = projection(readModel);
    const consumer = dynamodbStreamConsumer(handler, {
      journal,
      consumer: 'payments-read-model',
      messageId: (record) => `${record.keys.pk}`,
      fingerprint: (record) => record.newImage,
    });

    await localStreamPoller(left).deliver((event) => consumer(event));
    await localStreamPoller(right).deliver((event) => consumer(event));

    expect(projected).toEqual(['p1']);
    expect(await itemOf(client, readModel, 'total')).toEqual({ pk: 'total', total: 10, projections: 1 });
  });

  it("commits nothing but the winner's writes under effects: 'staged-only' when two batches race", async () => {
    const { client, journal } = await localJournal();
    const [payments, readModel] = await Promise.all([paymentsTable(client), createTable(client, 'read-model')]);
    await pay(client, payments, captured('p1', 10), captured('p2', 20));
    const event = await localStreamPoller(payments).read();
    const { handler } = projection(readModel);
    const consumer = dynamodbStreamConsumer(handler, {
      journal,
      consumer: 'payments-read-model',
      effects: 'staged-only',
    });

    const answers = await Promise.all([consumer(event), consumer(event), consumer(event)]);

    expect(answers).toEqual(Array(3).fill({ batchItemFailures: [] }));
    expect(await itemOf(client, readModel, 'total')).toEqual({ pk: 'total', total: 30, projections: 2 });
  });
});

describe('dynamodbStreamConsumer on bad input', () => {
  const record = (sequenceNumber?: string): DynamoDBRecord => ({
    eventID: 'e1',
    eventName: 'INSERT',
    eventSource: 'aws:dynamodb',
    dynamodb: { Keys: { pk: { S: 'p1' } }, NewImage: { pk: { S: 'p1' } }, SequenceNumber: sequenceNumber },
  });

  it('refuses an event without Records, and a record without a sequence number, before running anything', async () => {
    const { journal } = await localJournal();
    const ran: unknown[] = [];
    const consumer = dynamodbStreamConsumer(async (r) => void ran.push(r), { journal, consumer: 'c' });

    await expect(consumer({} as never)).rejects.toThrow(RequestInvalidError);
    await expect(consumer({ Records: [record('1'), record()] })).rejects.toThrow(
      'record 1 of the batch has no sequence number',
    );
    expect(ran).toEqual([]);
  });
});

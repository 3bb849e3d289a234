/**
 * Numbers a JavaScript number cannot hold (64-bit ids, decimals with more digits than a double),
 * written to a DynamoDB Local table and read from its real stream: dynamodbStreamConsumer hands
 * them over exactly and recognises the redelivery of such a record.
 */
import {
  CreateTableCommand,
  GetItemCommand,
  PutItemCommand,
  type AttributeValue,
  type DynamoDBClient,
} from '@aws-sdk/client-dynamodb';
import { NumberValue } from '@aws-sdk/lib-dynamodb';
import type { DynamoDBStreamEvent } from 'aws-lambda';
import { randomUUID } from 'node:crypto';
import { dynamodbStreamConsumer, idempotencyOf, type DynamoDBStreamConsumerRecord } from '../../src/entries/streams.js';
import { messagePk } from '../../src/journal/index.js';
import { MetricName } from '../../src/telemetry/index.js';
import { createTable } from '../support/dynamodb.js';
import { lambdaContext } from '../support/lambda.js';
import { localStreamPoller } from '../support/streams.js';
import { localJournal, metricCounter } from '../sqs/consumer-fixtures.js';

const UINT64_MAX = '18446744073709551615';
const LONG_DECIMAL = '12345678901234567890.123';

/** A ledger table keyed by a number, its stream carrying new images. */
async function ledgerTable(client: DynamoDBClient): Promise<string> {
  const tableName = `ledger-${randomUUID().slice(0, 8)}`;
  await client.send(
    new CreateTableCommand({
      TableName: tableName,
      AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'N' }],
      KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
      BillingMode: 'PAY_PER_REQUEST',
      StreamSpecification: { StreamEnabled: true, StreamViewType: 'NEW_IMAGE' },
    }),
  );
  return tableName;
}

async function put(client: DynamoDBClient, table: string, item: Record<string, AttributeValue>): Promise<void> {
  await client.send(new PutItemCommand({ TableName: table, Item: item }));
}

/** A Lambda redelivery: the same records, parsed again from the event's JSON. */
const redelivery = (event: DynamoDBStreamEvent): DynamoDBStreamEvent => JSON.parse(JSON.stringify(event));

const entry = { id: { N: UINT64_MAX }, balance: { N: LONG_DECIMAL }, price: { N: '19.99' } };

describe('dynamodbStreamConsumer on numbers beyond a JavaScript number', () => {
  let metrics: ReturnType<typeof metricCounter>;
  beforeEach(() => {
    metrics = metricCounter();
  });
  afterEach(() => metrics.restore());

  it('hands the handler every number exactly: bigint for a large integer, NumberValue for a long decimal', async () => {
    const { client, journal } = await localJournal();
    const ledger = await ledgerTable(client);
    await put(client, ledger, { ...entry, limits: { NS: ['1', UINT64_MAX, '0.12345678901234567890123'] } });
    const seen: DynamoDBStreamConsumerRecord[] = [];
    const consumer = dynamodbStreamConsumer(async (record) => void seen.push(record), { journal, consumer: 'ledger' });

    const { response } = await localStreamPoller(ledger).deliver((event) => consumer(event, lambdaContext()));

    expect(response).toEqual({ batchItemFailures: [] });
    expect(seen).toHaveLength(1);
    const [{ keys, newImage }] = seen;
    expect(keys).toEqual({ id: 18446744073709551615n });
    expect(newImage?.id).toBe(18446744073709551615n);
    expect(newImage?.balance).toBeInstanceOf(NumberValue);
    expect(String(newImage?.balance)).toBe(LONG_DECIMAL);
    expect(newImage?.price).toBe(19.99);
    const limits = [...(newImage?.limits as Set<unknown>)];
    expect(limits.map(String).sort()).toEqual(['0.12345678901234567890123', '1', UINT64_MAX]);
    expect(limits.filter((limit) => typeof limit === 'number')).toEqual([1]);
  });

  it('stages such numbers back into DynamoDB with every digit', async () => {
    const { client, journal } = await localJournal();
    const [ledger, readModel] = await Promise.all([ledgerTable(client), createTable(client, 'read-model')]);
    await put(client, ledger, entry);
    const consumer = dynamodbStreamConsumer(
      async (record, context) => {
        idempotencyOf(context).stage({
          Put: {
            TableName: readModel,
            Item: { pk: 'latest', id: record.newImage?.id, balance: record.newImage?.balance },
          },
        });
      },
      { journal, consumer: 'ledger' },
    );

    await localStreamPoller(ledger).deliver((event) => consumer(event, lambdaContext()));

    const { Item } = await client.send(
      new GetItemCommand({ TableName: readModel, Key: { pk: { S: 'latest' } }, ConsistentRead: true }),
    );
    expect(Item).toEqual({ pk: { S: 'latest' }, id: { N: UINT64_MAX }, balance: { N: LONG_DECIMAL } });
  });

  it.each([
    ['the default fingerprint', undefined],
    ['a fingerprint over the unmarshalled image', (record: DynamoDBStreamConsumerRecord) => record.newImage],
  ])('suppresses the redelivery of such a record as a duplicate, under %s', async (_name, fingerprint) => {
    const { client, journal } = await localJournal();
    const ledger = await ledgerTable(client);
    await put(client, ledger, entry);
    const event = await localStreamPoller(ledger).read();
    let runs = 0;
    const handler = async () => void runs++;
    const options = { journal, consumer: 'ledger', fingerprint };
    const inboxPk = messagePk('ledger', event.Records[0].eventID!);

    const first = await dynamodbStreamConsumer(handler, options)(event, lambdaContext());
    const stored = await journal.get(inboxPk);
    const again = await dynamodbStreamConsumer(handler, options)(redelivery(event), lambdaContext());

    expect([first, again]).toEqual([{ batchItemFailures: [] }, { batchItemFailures: [] }]);
    expect(runs).toBe(1);
    expect(metrics.count(MetricName.duplicateSuppressed)).toBe(1);
    expect(metrics.count(MetricName.payloadMismatch)).toBe(0);
    expect(stored?.status).toBe('COMPLETED');
    expect((await journal.get(inboxPk))?.fingerprint).toBe(stored?.fingerprint);
  });

  it('tells apart two changes under one message id whose decimals differ past a double’s precision', async () => {
    const { client, journal } = await localJournal();
    const ledger = await ledgerTable(client);
    await put(client, ledger, entry);
    await put(client, ledger, { ...entry, balance: { N: '12345678901234567890.124' } });
    const seen: string[] = [];
    const consumer = dynamodbStreamConsumer(async (record) => void seen.push(String(record.newImage?.balance)), {
      journal,
      consumer: 'ledger',
      messageId: (record) => `${record.keys.id}`,
      fingerprint: (record) => record.newImage,
    });

    const { event, response } = await localStreamPoller(ledger).deliver((batch) => consumer(batch, lambdaContext()));

    expect(seen).toEqual([LONG_DECIMAL]);
    expect(response?.batchItemFailures).toEqual([{ itemIdentifier: event.Records[1].dynamodb!.SequenceNumber }]);
    expect(metrics.count(MetricName.payloadMismatch)).toBe(1);
  });
});

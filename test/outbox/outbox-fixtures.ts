import { DeleteItemCommand, PutItemCommand, UpdateItemCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBStreamEvent } from 'aws-lambda';
import { outboxItem } from '../../src/journal/completion-writes.js';
import { createJournalTable, localClient } from '../support/dynamodb.js';
import { localStreamPoller } from '../support/streams.js';

/** A journal table with streams on, and a poller over its stream. */
export async function journalWithStream(batchSize?: number) {
  const client = localClient();
  const tableName = await createJournalTable(client);
  return { client, tableName, poller: localStreamPoller(tableName, batchSize) };
}

/** Writes outbox items as a completion transaction would. */
export async function putOutboxEvents(
  client: DynamoDBClient,
  tableName: string,
  events: ReadonlyArray<{ eventId: string; type: string; detail: unknown }>,
): Promise<void> {
  for (const event of events) {
    const item = outboxItem({ ...event, occurredAt: '2026-11-30T10:00:00.000Z' }, 'req#-#POST%20%2Fpayments#k');
    await client.send(new PutItemCommand({ TableName: tableName, Item: marshall(item) }));
  }
}

/** Writes stream noise: a request record insert, an update and a delete of an outbox item. */
export async function putNoise(client: DynamoDBClient, tableName: string, outboxPk: string): Promise<void> {
  await client.send(
    new PutItemCommand({
      TableName: tableName,
      Item: marshall({ pk: 'req#-#op#key', kind: 'request', status: 'IN_PROGRESS' }),
    }),
  );
  await client.send(
    new UpdateItemCommand({
      TableName: tableName,
      Key: marshall({ pk: outboxPk }),
      UpdateExpression: 'SET touched = :t',
      ExpressionAttributeValues: marshall({ ':t': true }),
    }),
  );
  await client.send(new DeleteItemCommand({ TableName: tableName, Key: marshall({ pk: outboxPk }) }));
}

/** Sequence numbers of the records of an event whose item is an outbox item. */
export function outboxSequenceNumbers(event: DynamoDBStreamEvent): string[] {
  return event.Records.filter(
    (record) => record.eventName === 'INSERT' && record.dynamodb?.NewImage?.pk?.S?.startsWith('outbox#'),
  ).map((record) => record.dynamodb!.SequenceNumber!);
}

import { CreateTableCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';

/**
 * Creates an on-demand table with a string partition key, as the CDK constructs define them;
 * `stream` adds the `NEW_IMAGE` stream the journal's outbox needs.
 */
export async function createStringKeyTable(
  client: DynamoDBClient,
  tableName: string,
  keyName: string,
  options: { stream?: boolean } = {},
): Promise<void> {
  await client.send(
    new CreateTableCommand({
      TableName: tableName,
      AttributeDefinitions: [{ AttributeName: keyName, AttributeType: 'S' }],
      KeySchema: [{ AttributeName: keyName, KeyType: 'HASH' }],
      BillingMode: 'PAY_PER_REQUEST',
      ...(options.stream ? { StreamSpecification: { StreamEnabled: true, StreamViewType: 'NEW_IMAGE' } } : {}),
    }),
  );
}

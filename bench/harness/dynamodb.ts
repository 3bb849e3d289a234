import { DynamoDBClient, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { createStringKeyTable } from '../../scripts/local/tables.js';
import { randomUUID } from 'node:crypto';

/** A client for the local server; every library gets its own, as it would in its own container. */
export function benchClient(endpoint: string): DynamoDBClient {
  return new DynamoDBClient({
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
}

/** Creates an on-demand table keyed by `keyName` (string) and returns its name. */
export async function createTable(client: DynamoDBClient, prefix: string, keyName: string): Promise<string> {
  const tableName = `${prefix}-${randomUUID().slice(0, 8)}`;
  await createStringKeyTable(client, tableName, keyName);
  return tableName;
}

/** Counts the DynamoDB calls a client sends, by command name. */
export interface CallCounter {
  total(): number;
  byCommand(): Record<string, number>;
  reset(): void;
}

/** Adds a counting middleware to `client` (a DocumentClient built on it shares the stack). */
export function countCalls(client: DynamoDBClient): CallCounter {
  const counts = new Map<string, number>();
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const name = String(context.commandName).replace(/Command$/, '');
      counts.set(name, (counts.get(name) ?? 0) + 1);
      return next(args);
    },
    { step: 'initialize', name: 'benchCountCalls' },
  );
  return {
    total: () => [...counts.values()].reduce((a, b) => a + b, 0),
    byCommand: () => Object.fromEntries(counts),
    reset: () => counts.clear(),
  };
}

/** One unconditional `PutItem` of a small item: the yardstick every latency is divided by. */
export function rawPut(client: DynamoDBClient, tableName: string): (key: string) => Promise<void> {
  return async (key) => {
    await client.send(
      new PutItemCommand({
        TableName: tableName,
        Item: {
          pk: { S: key },
          status: { S: 'IN_PROGRESS' },
          expiresAt: { N: String(Math.floor(Date.now() / 1000) + 86_400) },
        },
      }),
    );
  };
}

import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBJournal } from '../../src/index.js';
import { createStringKeyTable } from '../../scripts/local/tables.js';
import { randomUUID } from 'node:crypto';

/** A client for the DynamoDB Local started by the global setup. */
export function localClient(
  options: { endpoint?: string; maxAttempts?: number; cacheMiddleware?: boolean } = {},
): DynamoDBClient {
  return new DynamoDBClient({
    endpoint: options.endpoint ?? process.env.IDEMKIT_TEST_DYNAMODB_ENDPOINT,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    maxAttempts: options.maxAttempts,
    cacheMiddleware: options.cacheMiddleware,
  });
}

/** Creates a journal table with a unique name (pk string, streams on) and returns its name. */
export async function createJournalTable(client: DynamoDBClient, prefix = 'journal'): Promise<string> {
  const tableName = `${prefix}-${randomUUID().slice(0, 8)}`;
  await createStringKeyTable(client, tableName, 'pk', { stream: true });
  return tableName;
}

/** A journal on a fresh DynamoDB Local table. */
export async function dynamoJournal(
  clientOptions?: Parameters<typeof localClient>[0],
): Promise<{ journal: DynamoDBJournal; tableName: string; client: ReturnType<typeof localClient> }> {
  const client = localClient(clientOptions);
  const tableName = await createJournalTable(client);
  return { journal: new DynamoDBJournal({ tableName, client }), tableName, client };
}

/** Creates a plain table keyed by `keyName` (string) and returns its name. */
export async function createTable(client: DynamoDBClient, prefix: string, keyName = 'pk'): Promise<string> {
  const tableName = `${prefix}-${randomUUID().slice(0, 8)}`;
  await createStringKeyTable(client, tableName, keyName);
  return tableName;
}

/**
 * Resolves once the next call made through `client` has its answer (a result or an error): a
 * gate for "the other attempt has read what is in the journal".
 */
export function nextCallAnswered(client: DynamoDBClient): Promise<void> {
  return new Promise((resolve) => {
    client.middlewareStack.add(
      (next) => async (args) => {
        try {
          return await next(args);
        } finally {
          resolve();
        }
      },
      { step: 'initialize' },
    );
  });
}

/** Counts DynamoDB calls made through a client, by command name. */
export function countCalls(client: DynamoDBClient): {
  total: () => number;
  byCommand: Map<string, number>;
  reset: () => void;
} {
  const byCommand = new Map<string, number>();
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const name = String(context.commandName);
      byCommand.set(name, (byCommand.get(name) ?? 0) + 1);
      return next(args);
    },
    { step: 'initialize', name: 'countCalls' },
  );
  return {
    byCommand,
    total: () => [...byCommand.values()].reduce((a, b) => a + b, 0),
    reset: () => byCommand.clear(),
  };
}

import { CreateTableCommand, UpdateTimeToLiveCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { randomUUID } from 'node:crypto';
import { assertKnownOptions, readBoolean, readString } from '../core/index.js';
import { PARTITION_KEY, TTL_ATTRIBUTE } from '../journal/index.js';

/** Options of {@link createJournalTable}. */
export interface JournalTableOptions {
  /**
   * Table name (at least 3 characters).
   * @default - `idemkit-journal-<8 random hex digits>`, new on every call, so tests never share records
   */
  readonly tableName?: string;
  /**
   * Whether the table has the `NEW_IMAGE` stream the outbox dispatcher reads.
   * @default true
   */
  readonly stream?: boolean;
}

const FACTORY = 'createJournalTable';

/**
 * Creates a journal table with the schema `DynamoDBJournal` and the `IdempotencyJournalTable`
 * construct use (partition key `pk` string, on demand, TTL on `expiresAt`, a `NEW_IMAGE` stream),
 * for tests against DynamoDB Local. Resolves to the table's name.
 *
 * @example
 * const tableName = await createJournalTable(client);
 * const journal = new DynamoDBJournal({ tableName, client });
 */
export async function createJournalTable(client: DynamoDBClient, options: JournalTableOptions = {}): Promise<string> {
  assertKnownOptions(FACTORY, options, [
    'tableName',
    'stream',
  ] as const satisfies readonly (keyof JournalTableOptions)[]);
  const tableName = readString(FACTORY, 'tableName', options.tableName, `idemkit-journal-${randomUUID().slice(0, 8)}`);
  const stream = readBoolean(FACTORY, 'stream', options.stream, true);
  await client.send(
    new CreateTableCommand({
      TableName: tableName,
      AttributeDefinitions: [{ AttributeName: PARTITION_KEY, AttributeType: 'S' }],
      KeySchema: [{ AttributeName: PARTITION_KEY, KeyType: 'HASH' }],
      BillingMode: 'PAY_PER_REQUEST',
      ...(stream ? { StreamSpecification: { StreamEnabled: true, StreamViewType: 'NEW_IMAGE' } } : {}),
    }),
  );
  // DynamoDB Local accepts TTL but deletes expired items late, if at all; the journal reads expiry itself.
  await client.send(
    new UpdateTimeToLiveCommand({
      TableName: tableName,
      TimeToLiveSpecification: { AttributeName: TTL_ATTRIBUTE, Enabled: true },
    }),
  );
  return tableName;
}

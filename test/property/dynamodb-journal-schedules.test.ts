import { CreateTableCommand } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import fc from 'fast-check';
import { randomUUID } from 'node:crypto';
import { DynamoDBJournal } from '../../src/index.js';
import { createJournalTable, localClient } from '../support/dynamodb.js';
import { propertyParameters } from './support/fast-check-parameters.js';
import { schedules } from './support/schedule-model.js';
import { runSchedule, type WorldFactory } from './support/schedule-runner.js';

describe('random schedules of attempts, lease expiries and crashes on DynamoDBJournal (DynamoDB Local)', () => {
  const client = localClient();
  const doc = DynamoDBDocumentClient.from(client);
  let journalTable: string;
  const effectsTable = `effects-${randomUUID().slice(0, 8)}`;

  beforeAll(async () => {
    journalTable = await createJournalTable(client);
    await client.send(
      new CreateTableCommand({
        TableName: effectsTable,
        AttributeDefinitions: [
          { AttributeName: 'pk', AttributeType: 'S' },
          { AttributeName: 'sk', AttributeType: 'S' },
        ],
        KeySchema: [
          { AttributeName: 'pk', KeyType: 'HASH' },
          { AttributeName: 'sk', KeyType: 'RANGE' },
        ],
        BillingMode: 'PAY_PER_REQUEST',
      }),
    );
  });

  /** One shared table; each run uses its own keys and its own journal instance on the run's clock. */
  const dynamoWorld: WorldFactory = (clock) => ({
    journal: new DynamoDBJournal({ tableName: journalTable, client, clock }),
    effectsTable,
    effectsOf: async (key) => {
      const out = await doc.send(
        new QueryCommand({
          TableName: effectsTable,
          KeyConditionExpression: 'pk = :k',
          ExpressionAttributeValues: { ':k': key },
          ConsistentRead: true,
        }),
      );
      return (out.Items ?? []).map((item) => String(item.sk));
    },
  });

  it('keep one committed effect per key, replay the first stored outcome, and leave every key resolvable after its lease', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.scheduler(), schedules(15), async (scheduler, schedule) => {
        await runSchedule(dynamoWorld, scheduler, schedule, `d${++run}-${randomUUID().slice(0, 6)}`);
      }),
      propertyParameters(15),
    );
  }, 90_000);
});

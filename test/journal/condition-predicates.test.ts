import { DynamoDBDocumentClient, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import {
  JournalCondition,
  JournalGuard,
  guardedItemOf,
  guardValuesOf,
  type JournalConditionName,
} from '../../src/journal/conditions.js';
import { RecordStatus } from '../../src/journal/index.js';
import { createJournalTable, localClient } from '../support/dynamodb.js';

/**
 * Every condition expression of the journal, sent to DynamoDB Local on items in every state the
 * protocol distinguishes, answers as its TypeScript predicate (`JournalGuard`) does. With the
 * model's guards tied to the predicates (test/model/guards.test.ts), the four statements of the
 * protocol — expressions, predicates, the memory journal that applies them, the model — cannot drift.
 */
describe('the journal’s condition expressions on DynamoDB Local agree with their predicates', () => {
  const client = localClient();
  const documents = DynamoDBDocumentClient.from(client);
  let tableName: string;
  const nowEpochMs = Date.UTC(2026, 11, 1, 12, 0, 0);
  const nowSeconds = Math.floor(nowEpochMs / 1000);
  const OWNER = 'req#-#op#owner';
  const VALUES: Record<string, unknown> = {
    ':nowMs': nowEpochMs,
    ':nowSeconds': nowSeconds,
    ':mine': 'token-1',
    ':old': 'token-1',
    ':token': 'token-1',
    ':owner': OWNER,
    ':inProgress': RecordStatus.inProgress,
    ':completed': RecordStatus.completed,
    ':unknown': RecordStatus.unknown,
    ':false': false,
  };

  type Item = Record<string, unknown> | undefined;
  const recordStates: Item[] = [undefined];
  for (const status of [RecordStatus.inProgress, RecordStatus.completed, RecordStatus.unknown])
    for (const token of ['token-1', 'token-2'])
      for (const live of [false, true])
        for (const expiry of ['none', 'past', 'future'] as const)
          for (const effectStarted of [false, true])
            recordStates.push({
              status,
              leaseToken: token,
              leaseUntil: live ? nowEpochMs + 5_000 : nowEpochMs - 5_000,
              ...(expiry === 'none' ? {} : { expiresAt: expiry === 'past' ? nowSeconds - 10 : nowSeconds + 10 }),
              effectStarted,
            });
  const claimStates: Item[] = [undefined];
  for (const claimedBy of [OWNER, 'req#-#op#other'])
    for (const holdToken of [undefined, 'token-1', 'token-2'])
      claimStates.push({ claimName: 'refund', claimValue: 'c-1', claimedBy, ...(holdToken ? { holdToken } : {}) });
  const CLAIM_CONDITIONS: JournalConditionName[] = ['itemAbsent', 'uniqueHoldable', 'uniqueHeldBy'];

  beforeAll(async () => {
    tableName = await createJournalTable(client, 'conditions');
  });

  afterAll(() => client.destroy());

  /** Whether DynamoDB lets a write with `condition` land on `item` (written first under a key of its own). */
  async function dynamoDBAllows(condition: string, item: Item, pk: string): Promise<boolean> {
    if (item) await documents.send(new PutCommand({ TableName: tableName, Item: { pk, ...item } }));
    const placeholders = (prefix: string) => [...new Set(condition.match(new RegExp(`${prefix}\\w+`, 'g')) ?? [])];
    const names = placeholders('#');
    try {
      await documents.send(
        new UpdateCommand({
          TableName: tableName,
          Key: { pk },
          UpdateExpression: 'SET probe = :probe',
          ConditionExpression: condition,
          // DynamoDB refuses an empty or unused map of names.
          ...(names.length > 0
            ? { ExpressionAttributeNames: Object.fromEntries(names.map((name) => [name, name.slice(1)])) }
            : {}),
          ExpressionAttributeValues: {
            ':probe': true,
            ...Object.fromEntries(placeholders(':').map((name) => [name, VALUES[name]])),
          },
        }),
      );
      return true;
    } catch (error) {
      if ((error as Error).name === 'ConditionalCheckFailedException') return false;
      throw error;
    }
  }

  it.each(Object.keys(JournalCondition) as JournalConditionName[])(
    '%s: DynamoDB and JournalGuard answer alike in every state',
    async (name) => {
      const states = CLAIM_CONDITIONS.includes(name) ? claimStates : recordStates;
      const answers = await Promise.all(
        states.map(async (item, i) => ({
          item,
          dynamodb: await dynamoDBAllows(JournalCondition[name], item, `cond#${name}#${i}`),
          predicate: JournalGuard[name](guardedItemOf(item), guardValuesOf(VALUES)),
        })),
      );
      expect(answers.filter((answer) => answer.dynamodb !== answer.predicate)).toEqual([]);
      // Both answers occur: a condition that always or never held would say nothing here.
      expect(new Set(answers.map((answer) => answer.dynamodb)).size).toBe(2);
    },
  );
});

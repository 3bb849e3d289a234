import { PutItemCommand, TransactWriteItemsCommand } from '@aws-sdk/client-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { JournalCondition } from '../../src/journal/conditions.js';
import { evaluateCondition } from '../../src/journal/condition-evaluation.js';
import { createJournalTable, localClient } from '../support/dynamodb.js';

/**
 * The evaluator that decides a multi-Region write after its cross-Region conflicts must agree
 * with DynamoDB on every condition the journal writes: each condition is checked here and on
 * DynamoDB Local (a `ConditionCheck`, which changes nothing) over the same items, boundaries
 * included (a lease ending exactly now, an expiry exactly now, a status the guard does not know).
 */
const NOW_MS = 1_800_000_000_500;
const NOW_SECONDS = Math.floor(NOW_MS / 1000);

const VALUES: Record<string, unknown> = {
  ':nowSeconds': NOW_SECONDS,
  ':nowMs': NOW_MS,
  ':now': NOW_MS,
  ':completed': 'COMPLETED',
  ':inProgress': 'IN_PROGRESS',
  ':unknown': 'UNKNOWN',
  ':mine': 't1',
  ':old': 't1',
  ':token': 't1',
  ':owner': 'req#-#op#owner',
  ':false': false,
};
const NAMES: Record<string, string> = { '#pk': 'pk', '#status': 'status' };

/** The placeholders an expression uses: DynamoDB refuses unused ones. */
const used = <T>(expression: string, all: Record<string, T>) =>
  Object.fromEntries(Object.entries(all).filter(([placeholder]) => new RegExp(`${placeholder}\\b`).test(expression)));

function recordItems(): Record<string, unknown>[] {
  const items: Record<string, unknown>[] = [];
  for (const status of ['IN_PROGRESS', 'COMPLETED', 'UNKNOWN', 'PAUSED', undefined])
    for (const leaseToken of ['t1', 't2'])
      for (const leaseUntil of [NOW_MS - 1, NOW_MS, NOW_MS + 1])
        for (const expiresAt of [undefined, NOW_SECONDS - 1, NOW_SECONDS, NOW_SECONDS + 1])
          for (const effectStarted of [false, true]) {
            const item: Record<string, unknown> = { leaseToken, leaseUntil, effectStarted };
            if (status !== undefined) item.status = status;
            if (expiresAt !== undefined) item.expiresAt = expiresAt;
            items.push(item);
          }
  return items;
}

function claimItems(): Record<string, unknown>[] {
  const items: Record<string, unknown>[] = [];
  for (const claimedBy of ['req#-#op#owner', 'req#-#op#other'])
    for (const holdToken of [undefined, 't1', 't2']) {
      const item: Record<string, unknown> = { claimName: 'refund', claimValue: 'r-1', claimedBy };
      if (holdToken !== undefined) item.holdToken = holdToken;
      items.push(item);
    }
  return items;
}

describe('evaluateCondition agrees with DynamoDB Local on every journal condition', () => {
  const client = localClient();
  let tableName: string;
  let items: Array<{ pk: string; item: Record<string, unknown> | undefined }>;

  beforeAll(async () => {
    tableName = await createJournalTable(client, 'conditions');
    const present = [...recordItems(), ...claimItems()].map((item, i) => ({ pk: `item#${i}`, item: { ...item } }));
    for (let i = 0; i < present.length; i += 25) {
      await Promise.all(
        present
          .slice(i, i + 25)
          .map(({ pk, item }) =>
            client.send(new PutItemCommand({ TableName: tableName, Item: marshall({ ...item, pk }) })),
          ),
      );
    }
    items = [{ pk: 'item#absent', item: undefined }, ...present];
  }, 60_000);

  /** What DynamoDB decides: a one-item transaction holding a ConditionCheck succeeds or is cancelled on it. */
  async function serverDecides(pk: string, expression: string): Promise<boolean> {
    const names = used(expression, NAMES);
    const values = used(expression, VALUES);
    try {
      await client.send(
        new TransactWriteItemsCommand({
          TransactItems: [
            {
              ConditionCheck: {
                TableName: tableName,
                Key: marshall({ pk }),
                ConditionExpression: expression,
                ExpressionAttributeNames: Object.keys(names).length > 0 ? names : undefined,
                ExpressionAttributeValues: Object.keys(values).length > 0 ? marshall(values) : undefined,
              },
            },
          ],
        }),
      );
      return true;
    } catch (error) {
      const reasons = (error as { CancellationReasons?: Array<{ Code?: string }> }).CancellationReasons;
      if (reasons?.[0]?.Code === 'ConditionalCheckFailed') return false;
      throw error;
    }
  }

  it.each(Object.entries(JournalCondition))(
    '%s: the same verdict as the server for every item',
    async (name, expression) => {
      const disagreements: string[] = [];
      for (let i = 0; i < items.length; i += 20) {
        await Promise.all(
          items.slice(i, i + 20).map(async ({ pk, item }) => {
            const server = await serverDecides(pk, expression);
            const local = evaluateCondition(expression, item && { ...item, pk }, NAMES, VALUES);
            if (local !== server) disagreements.push(`${JSON.stringify(item)}: server ${server}, evaluated ${local}`);
          }),
        );
      }
      expect({ name, disagreements }).toEqual({ name, disagreements: [] });
    },
    60_000,
  );

  it('leaves undecided what it does not evaluate (another function, BETWEEN, a nested path), rather than guessing', () => {
    const item = { pk: 'k', n: 3, m: { a: 1 } };

    expect(evaluateCondition('begins_with(pk, :p)', item, {}, { ':p': 'k' })).toBeUndefined();
    expect(evaluateCondition('n BETWEEN :a AND :b', item, {}, { ':a': 1, ':b': 5 })).toBeUndefined();
    expect(evaluateCondition('m.a = :a', item, {}, { ':a': 1 })).toBeUndefined();
    expect(evaluateCondition('n = :missing', item, {}, {})).toBeUndefined();
  });
});

import { PutItemCommand, TransactWriteItemsCommand } from '@aws-sdk/client-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import {
  guardedItemOf,
  guardValuesOf,
  JournalCondition,
  JournalGuard,
  type JournalConditionName,
} from '../../src/journal/conditions.js';
import { createJournalTable, localClient } from '../support/dynamodb.js';

/**
 * Every condition expression of the journal, decided by DynamoDB Local (a `ConditionCheck`, which
 * changes nothing), answers as its TypeScript predicate (`JournalGuard`) does, over the same items,
 * boundaries included (a lease ending exactly now, an expiry exactly now, a status the guard does
 * not know, none at all). The predicates are what `MemoryJournal` applies and what decides a
 * multi-Region write after its cross-Region conflicts; with the model's guards tied to them
 * (test/model/guards.test.ts), the four statements of the protocol cannot drift.
 */
const NOW_MS = 1_800_000_000_500;
const NOW_SECONDS = Math.floor(NOW_MS / 1000);

const VALUES: Record<string, unknown> = {
  ':nowSeconds': NOW_SECONDS,
  ':nowMs': NOW_MS,
  ':completed': 'COMPLETED',
  ':inProgress': 'IN_PROGRESS',
  ':unknown': 'UNKNOWN',
  ':mine': 't1',
  ':old': 't1',
  ':token': 't1',
  ':owner': 'req#-#op#owner',
  ':ownerCreatedAt': 1_700_000_000_000,
  ':false': false,
  ':fingerprint': 'f1',
  ':chunk': 'chunk',
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
          for (const effectStarted of [false, true])
            for (const fingerprint of ['f1', 'f2']) {
              const item: Record<string, unknown> = { leaseToken, leaseUntil, effectStarted, fingerprint };
              if (status !== undefined) item.status = status;
              if (expiresAt !== undefined) item.expiresAt = expiresAt;
              items.push(item);
            }
  return items;
}

/** Response chunks, and items of other kinds without a status, around their expiry. */
function chunkItems(): Record<string, unknown>[] {
  const items: Record<string, unknown>[] = [];
  for (const kind of ['chunk', 'outbox', undefined])
    for (const expiresAt of [undefined, NOW_SECONDS - 1, NOW_SECONDS, NOW_SECONDS + 1]) {
      const item: Record<string, unknown> = { data: 'x' };
      if (kind !== undefined) item.kind = kind;
      if (expiresAt !== undefined) item.expiresAt = expiresAt;
      items.push(item);
    }
  return items;
}

function claimItems(): Record<string, unknown>[] {
  const items: Record<string, unknown>[] = [];
  for (const claimedBy of ['req#-#op#owner', 'req#-#op#other'])
    for (const ownerCreatedAt of [undefined, 1_700_000_000_000, 1_700_000_000_001])
      for (const holdToken of [undefined, 't1', 't2'])
        for (const pinned of [undefined, true]) {
          const item: Record<string, unknown> = { claimName: 'refund', claimValue: 'r-1', claimedBy };
          if (ownerCreatedAt !== undefined) item.ownerCreatedAt = ownerCreatedAt;
          if (holdToken !== undefined) item.holdToken = holdToken;
          if (pinned !== undefined) item.pinned = pinned;
          items.push(item);
        }
  return items;
}

describe('the journal’s condition expressions on DynamoDB Local agree with their predicates', () => {
  const client = localClient();
  let tableName: string;
  let items: Array<{ pk: string; item: Record<string, unknown> | undefined }>;

  beforeAll(async () => {
    tableName = await createJournalTable(client, 'conditions');
    const present = [...recordItems(), ...chunkItems(), ...claimItems()].map((item, i) => ({
      pk: `item#${i}`,
      item: { ...item },
    }));
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
            const local = JournalGuard[name as JournalConditionName](guardedItemOf(item), guardValuesOf(VALUES));
            if (local !== server) disagreements.push(`${JSON.stringify(item)}: server ${server}, evaluated ${local}`);
          }),
        );
      }
      expect({ name, disagreements }).toEqual({ name, disagreements: [] });
      // Both answers occur: a condition that always or never held would say nothing here.
      expect(new Set(await Promise.all(items.map(({ pk }) => serverDecides(pk, expression)))).size).toBe(2);
    },
    60_000,
  );
});

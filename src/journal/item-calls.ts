import { InvalidOptionsError } from '../core/index.js';
import {
  BatchGetItemCommand,
  BatchWriteItemCommand,
  DeleteItemCommand,
  GetItemCommand,
  PutItemCommand,
  TransactWriteItemsCommand,
  UpdateItemCommand,
  type AttributeValue,
  type BatchGetItemCommandOutput,
  type BatchWriteItemCommandOutput,
  type DynamoDBClient,
  type ReturnValue,
  type ReturnValuesOnConditionCheckFailure,
  type TransactWriteItem,
} from '@aws-sdk/client-dynamodb';
import { fromAttributeMap, toAttributeMap } from './attribute-values.js';
import type { TransactItem } from './journal.js';

/** A plain JavaScript item or key. */
export type PlainItem = Record<string, unknown>;

/** Expression parts shared by conditional writes, with plain values. */
export interface Expressions {
  readonly ConditionExpression?: string;
  readonly ExpressionAttributeNames?: Record<string, string>;
  readonly ExpressionAttributeValues?: Record<string, unknown>;
}

type Sender = Pick<DynamoDBClient, 'send'>;
type AttributeMap = Record<string, AttributeValue>;

const toMap = toAttributeMap;
const toValues = (values: Record<string, unknown> | undefined) => (values ? toMap(values) : undefined);
const fromMap = (map: AttributeMap | undefined): PlainItem | undefined => (map ? fromAttributeMap(map) : undefined);

/**
 * The journal's DynamoDB calls with plain JavaScript items, marshalled here (as
 * `@aws-sdk/util-dynamodb` does, see `toAttributeMap`) instead of through the DocumentClient,
 * whose per-call middleware the hot path does not need. Errors are the SDK's own (condition failures keep the marshalled
 * `Item` the SDK returns).
 */
export class ItemCalls {
  constructor(
    private readonly client: Sender,
    private readonly tableName: string,
  ) {}

  async put(item: PlainItem, expressions: Expressions & { ReturnValues?: ReturnValue; ReturnValuesOnConditionCheckFailure?: ReturnValuesOnConditionCheckFailure }): Promise<PlainItem | undefined> {
    const out = await this.client.send(
      new PutItemCommand({ TableName: this.tableName, Item: toMap(item), ...expressions, ExpressionAttributeValues: toValues(expressions.ExpressionAttributeValues) }),
    );
    return fromMap(out.Attributes);
  }

  async update(
    key: PlainItem,
    input: Expressions & { UpdateExpression: string; ReturnValues?: ReturnValue; ReturnValuesOnConditionCheckFailure?: ReturnValuesOnConditionCheckFailure },
  ): Promise<PlainItem | undefined> {
    const out = await this.client.send(
      new UpdateItemCommand({ TableName: this.tableName, Key: toMap(key), ...input, ExpressionAttributeValues: toValues(input.ExpressionAttributeValues) }),
    );
    return fromMap(out.Attributes);
  }

  async delete(key: PlainItem, expressions: Expressions & { ReturnValuesOnConditionCheckFailure?: ReturnValuesOnConditionCheckFailure }): Promise<void> {
    await this.client.send(new DeleteItemCommand({ TableName: this.tableName, Key: toMap(key), ...expressions, ExpressionAttributeValues: toValues(expressions.ExpressionAttributeValues) }));
  }

  async get(key: PlainItem): Promise<PlainItem | undefined> {
    const out = await this.client.send(new GetItemCommand({ TableName: this.tableName, Key: toMap(key), ConsistentRead: true }));
    return fromMap(out.Item);
  }

  /** Writes every item, resending what DynamoDB leaves unprocessed (25 items per call). */
  async putAll(items: readonly PlainItem[]): Promise<void> {
    await putAllInBatches(this.client, this.tableName, items.map(toMap));
  }

  /** Strongly consistent reads of every key, resending what DynamoDB leaves unprocessed. */
  async getAll(keys: readonly PlainItem[]): Promise<PlainItem[]> {
    const found: PlainItem[] = [];
    let pending: BatchGetItemCommand['input']['RequestItems'] | undefined = { [this.tableName]: { Keys: keys.map(toMap), ConsistentRead: true } };
    for (let attempt = 0; pending && (pending[this.tableName]?.Keys?.length ?? 0) > 0; attempt++) {
      if (attempt > 0) await backOff(attempt);
      const out: BatchGetItemCommandOutput = await this.client.send(new BatchGetItemCommand({ RequestItems: pending }));
      for (const item of out.Responses?.[this.tableName] ?? []) found.push(fromAttributeMap(item));
      pending = out.UnprocessedKeys;
    }
    return found;
  }

  /** One `TransactWriteItems` of DocumentClient-style entries; `clientRequestToken` makes a resend idempotent. */
  async transactWrite(items: readonly TransactItem[], clientRequestToken?: string): Promise<void> {
    await this.client.send(new TransactWriteItemsCommand({ TransactItems: items.map(toTransactWriteItem), ClientRequestToken: clientRequestToken }));
  }
}

const BATCH_WRITE_MAX_ITEMS = 25;
const MAX_UNPROCESSED_ROUNDS = 8;

/**
 * Puts marshalled items with `BatchWriteItem`, 25 per call, resending what DynamoDB leaves
 * unprocessed after a jittered wait; throws when items stay unprocessed.
 */
export async function putAllInBatches(client: Sender, tableName: string, items: readonly AttributeMap[]): Promise<void> {
  for (let start = 0; start < items.length; start += BATCH_WRITE_MAX_ITEMS) {
    let pending: BatchWriteItemCommand['input']['RequestItems'] | undefined = {
      [tableName]: items.slice(start, start + BATCH_WRITE_MAX_ITEMS).map((Item) => ({ PutRequest: { Item } })),
    };
    for (let attempt = 0; pending && (pending[tableName]?.length ?? 0) > 0; attempt++) {
      if (attempt > 0) await backOff(attempt);
      const out: BatchWriteItemCommandOutput = await client.send(new BatchWriteItemCommand({ RequestItems: pending }));
      pending = out.UnprocessedItems;
    }
  }
}

/** Waits before resending unprocessed batch items (DynamoDB's advice under throttling); gives up after a few rounds. */
async function backOff(attempt: number): Promise<void> {
  if (attempt >= MAX_UNPROCESSED_ROUNDS) throw new Error(`DynamoDB left batch items unprocessed after ${MAX_UNPROCESSED_ROUNDS} rounds`);
  await new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(1_000, 25 * 2 ** attempt)));
}

function toTransactWriteItem(entry: TransactItem): TransactWriteItem {
  const values = (e: { ExpressionAttributeValues?: Record<string, unknown> }) => toValues(e.ExpressionAttributeValues);
  if (entry.Put) return { Put: { ...entry.Put, Item: toMap(entry.Put.Item), ExpressionAttributeValues: values(entry.Put) } };
  if (entry.Update) return { Update: { ...entry.Update, Key: toMap(entry.Update.Key), ExpressionAttributeValues: values(entry.Update) } };
  if (entry.Delete) return { Delete: { ...entry.Delete, Key: toMap(entry.Delete.Key), ExpressionAttributeValues: values(entry.Delete) } };
  if (entry.ConditionCheck) return { ConditionCheck: { ...entry.ConditionCheck, Key: toMap(entry.ConditionCheck.Key), ExpressionAttributeValues: values(entry.ConditionCheck) } };
  throw new InvalidOptionsError('A staged item must be one of Put, Update, Delete or ConditionCheck');
}

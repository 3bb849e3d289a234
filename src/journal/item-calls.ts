import { InvalidOptionsError, JournalUnavailableError } from '../core/index.js';
import {
  BatchGetItemCommand,
  BatchWriteItemCommand,
  DeleteItemCommand,
  GetItemCommand,
  PutItemCommand,
  TransactWriteItemsCommand,
  UpdateItemCommand,
  type BatchGetItemCommandOutput,
  type BatchWriteItemCommandOutput,
  type DynamoDBClient,
  type ReturnValue,
  type ReturnValuesOnConditionCheckFailure,
  type TransactWriteItem,
} from '@aws-sdk/client-dynamodb';
import { fromAttributeMap, toAttributeMap, type AttributeMap } from './attribute-values.js';
import { throttleOf } from './throttling.js';
import type { TransactItem } from './journal.js';
import type { JournalItem } from './schema.js';

/** A plain JavaScript item or key. */
export type PlainItem = Record<string, unknown>;

/** Expression parts shared by conditional writes, with plain values. */
export interface Expressions {
  readonly ConditionExpression?: string;
  readonly ExpressionAttributeNames?: Record<string, string>;
  readonly ExpressionAttributeValues?: Record<string, unknown>;
}

type Sender = Pick<DynamoDBClient, 'send'>;
/** What a single-item write may ask back: the item before it, on success or on a failed condition. */
type Returning = {
  readonly ReturnValues?: ReturnValue;
  readonly ReturnValuesOnConditionCheckFailure?: ReturnValuesOnConditionCheckFailure;
};
/** What the journal reads of an AWS SDK error: its name, and the items a failed condition returns. */
export type AwsError = {
  readonly name?: string;
  readonly message?: string;
  readonly Item?: Record<string, unknown>;
  readonly CancellationReasons?: ReadonlyArray<CancellationReason>;
};

/** One item's reason in a cancelled transaction (`Item` marshalled, with `ALL_OLD` on a failed condition). */
export type CancellationReason = {
  readonly Code?: string;
  readonly Message?: string;
  readonly Item?: Record<string, unknown>;
};

/**
 * The journal operation a DynamoDB request is sent for. Every request the journal sends is
 * tagged with it (see {@link journalOperationOf}), so client middleware (tracing, logging,
 * fault injection in tests) can tell journal calls apart without reading their expressions.
 */
export type JournalOperation =
  | 'reserve'
  | 'takeOver'
  | 'heartbeat'
  | 'beginEffect'
  | 'recordEvidence'
  | 'complete'
  | 'writeChunks'
  | 'readChunks'
  | 'markUnknown'
  | 'markAbandonedUnknown'
  | 'release'
  | 'get'
  | 'resolve'
  | 'commitStaged'
  | 'holdUnique'
  | 'fenceHolder'
  | 'pinUnique'
  | 'makeUniquePermanent'
  | 'letGoUnique'
  | 'sweep'
  | 'migrate';

/**
 * The operation of each request the journal sends, by the request's input object: middleware
 * receives that very object as `args.input` at every step. Keyed weakly, so a tag lives as
 * long as its request; held outside the SDK's handler context, which a client built with
 * `cacheMiddleware: true` shares between requests.
 */
const operations = new WeakMap<object, JournalOperation>();

/**
 * The journal operation a request belongs to, read in client middleware from the `args` it
 * receives; undefined for requests the journal did not send.
 *
 * @example
 * client.middlewareStack.add((next) => (args) => {
 *   if (journalOperationOf(args) === 'complete') console.log('completing');
 *   return next(args);
 * }, { step: 'finalizeRequest' });
 */
export function journalOperationOf(args: { readonly input?: unknown }): JournalOperation | undefined {
  const input = args?.input;
  return typeof input === 'object' && input !== null ? operations.get(input) : undefined;
}

const toMap = toAttributeMap;
const toValues = (values: Record<string, unknown> | undefined) => (values ? toMap(values) : undefined);
const fromMap = (map: AttributeMap | undefined): PlainItem | undefined => (map ? fromAttributeMap(map) : undefined);

/**
 * The journal's DynamoDB calls with plain JavaScript items, marshalled here (as
 * `@aws-sdk/util-dynamodb` does, see `toAttributeMap`) instead of through the DocumentClient,
 * whose per-call middleware the hot path does not need. Errors are the SDK's own (condition
 * failures keep the marshalled `Item` the SDK returns).
 */
export class ItemCalls {
  constructor(
    private readonly client: Sender,
    private readonly tableName: string,
  ) {}

  async put(
    operation: JournalOperation,
    item: PlainItem,
    expressions: Expressions & Returning,
  ): Promise<PlainItem | undefined> {
    const input = { ...this.withValues(expressions), Item: toMap(item) };
    return fromMap((await this.client.send(tagged(operation, new PutItemCommand(input)))).Attributes);
  }

  async update(
    operation: JournalOperation,
    key: PlainItem,
    expressions: Expressions & Returning & { UpdateExpression: string },
  ): Promise<PlainItem | undefined> {
    const input = { ...this.withValues(expressions), Key: toMap(key) };
    return fromMap((await this.client.send(tagged(operation, new UpdateItemCommand(input)))).Attributes);
  }

  async delete(operation: JournalOperation, key: PlainItem, expressions: Expressions & Returning): Promise<void> {
    const input = { ...this.withValues(expressions), Key: toMap(key) };
    await this.client.send(tagged(operation, new DeleteItemCommand(input)));
  }

  async get(operation: JournalOperation, key: PlainItem): Promise<PlainItem | undefined> {
    const out = await this.client.send(
      tagged(operation, new GetItemCommand({ TableName: this.tableName, Key: toMap(key), ConsistentRead: true })),
    );
    return fromMap(out.Item);
  }

  /** Writes every item, resending what DynamoDB leaves unprocessed (25 items per call). */
  async putAll(operation: JournalOperation, items: readonly PlainItem[]): Promise<void> {
    await putAllInBatches(this.client, this.tableName, items.map(toMap), operation);
  }

  /** Strongly consistent reads of every key, resending what DynamoDB leaves unprocessed. */
  async getAll(operation: JournalOperation, keys: readonly PlainItem[]): Promise<PlainItem[]> {
    const found: PlainItem[] = [];
    let pending: BatchGetItemCommand['input']['RequestItems'] | undefined = {
      [this.tableName]: { Keys: keys.map(toMap), ConsistentRead: true },
    };
    for (let attempt = 0; pending && (pending[this.tableName]?.Keys?.length ?? 0) > 0; attempt++) {
      if (attempt > 0) await backOff(attempt);
      const out: BatchGetItemCommandOutput = await this.client.send(
        tagged(operation, new BatchGetItemCommand({ RequestItems: pending })),
      );
      for (const item of out.Responses?.[this.tableName] ?? []) found.push(fromAttributeMap(item));
      pending = out.UnprocessedKeys;
    }
    return found;
  }

  /** One `TransactWriteItems` of DocumentClient-style entries; `clientRequestToken` makes a resend idempotent. */
  async transactWrite(
    operation: JournalOperation,
    items: readonly TransactItem[],
    clientRequestToken?: string,
  ): Promise<void> {
    await this.client.send(
      tagged(
        operation,
        new TransactWriteItemsCommand({
          TransactItems: items.map(toTransactWriteItem),
          ClientRequestToken: clientRequestToken,
        }),
      ),
    );
  }

  /** A single-item request on the journal table, its expression values marshalled. */
  private withValues<E extends Expressions>(expressions: E) {
    return {
      TableName: this.tableName,
      ...expressions,
      ExpressionAttributeValues: toValues(expressions.ExpressionAttributeValues),
    };
  }
}

/** True for a failed `ConditionExpression` on a single-item write. */
export function isConditionFailure(error: unknown): boolean {
  return (error as AwsError)?.name === 'ConditionalCheckFailedException';
}

/** The item returned with `ReturnValuesOnConditionCheckFailure: ALL_OLD` (the SDK leaves it marshalled). */
export function oldItemOf(error: unknown): JournalItem | undefined {
  const item = (error as AwsError).Item;
  return item ? fromAttributeMap(item as AttributeMap) : undefined;
}

/**
 * Wraps an unexpected SDK failure: the journal could not answer. A throttle is answered as one
 * (`JournalThrottledError`, a subclass): DynamoDB is up, the key's partition is over its limit.
 */
export function toJournalError(error: unknown, operation: string): JournalUnavailableError {
  const throttled = throttleOf(error, operation);
  if (throttled) return throttled;
  const name = (error as AwsError)?.name ?? 'Error';
  const message = error instanceof Error ? error.message : String(error);
  return new JournalUnavailableError(`Journal ${operation} failed: ${name}: ${message}`, { cause: error });
}

/** The per-item reasons of a cancelled transaction, in the order its items were sent; undefined for any other error. */
export function cancellationReasonsOf(error: unknown): ReadonlyArray<CancellationReason> | undefined {
  return (error as AwsError)?.name === 'TransactionCanceledException'
    ? (error as AwsError).CancellationReasons
    : undefined;
}

/** An item a failed condition returned, unmarshalled. */
export function itemOf(reason: CancellationReason | undefined): JournalItem | undefined {
  return reason?.Item ? fromAttributeMap(reason.Item as AttributeMap) : undefined;
}

/** Tags a command with the journal operation it is sent for (see {@link journalOperationOf}). */
function tagged<C extends { readonly input: object }>(operation: JournalOperation, command: C): C {
  operations.set(command.input, operation);
  return command;
}

const BATCH_WRITE_MAX_ITEMS = 25;
const MAX_UNPROCESSED_ROUNDS = 8;

/**
 * Puts marshalled items with `BatchWriteItem`, 25 per call, resending what DynamoDB leaves
 * unprocessed after a jittered wait; throws when items stay unprocessed.
 */
export async function putAllInBatches(
  client: Sender,
  tableName: string,
  items: readonly AttributeMap[],
  operation?: JournalOperation,
): Promise<void> {
  for (let start = 0; start < items.length; start += BATCH_WRITE_MAX_ITEMS) {
    let pending: BatchWriteItemCommand['input']['RequestItems'] | undefined = {
      [tableName]: items.slice(start, start + BATCH_WRITE_MAX_ITEMS).map((Item) => ({ PutRequest: { Item } })),
    };
    for (let attempt = 0; pending && (pending[tableName]?.length ?? 0) > 0; attempt++) {
      if (attempt > 0) await backOff(attempt);
      const command = new BatchWriteItemCommand({ RequestItems: pending });
      const out: BatchWriteItemCommandOutput = await client.send(operation ? tagged(operation, command) : command);
      pending = out.UnprocessedItems;
    }
  }
}

/** Waits before resending unprocessed batch items (DynamoDB's advice under throttling); gives up after a few rounds. */
async function backOff(attempt: number): Promise<void> {
  if (attempt >= MAX_UNPROCESSED_ROUNDS)
    throw new Error(`DynamoDB left batch items unprocessed after ${MAX_UNPROCESSED_ROUNDS} rounds`);
  await new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(1_000, 25 * 2 ** attempt)));
}

/** The table a DocumentClient-style transaction entry writes to (`'?'` for an entry of no known kind). */
export function tableOf(entry: TransactItem | undefined): string {
  return (entry?.Put ?? entry?.Update ?? entry?.Delete ?? entry?.ConditionCheck)?.TableName ?? '?';
}

/**
 * A DocumentClient-style transaction entry in DynamoDB's wire format.
 *
 * @throws InvalidOptionsError for an entry that is none of Put, Update, Delete or ConditionCheck; util-dynamodb's error
 *   for a value it cannot marshal (a `Date`, a class instance)
 */
export function toTransactWriteItem(entry: TransactItem): TransactWriteItem {
  const values = (e: { ExpressionAttributeValues?: Record<string, unknown> }) => toValues(e.ExpressionAttributeValues);
  if (entry.Put)
    return { Put: { ...entry.Put, Item: toMap(entry.Put.Item), ExpressionAttributeValues: values(entry.Put) } };
  if (entry.Update)
    return {
      Update: { ...entry.Update, Key: toMap(entry.Update.Key), ExpressionAttributeValues: values(entry.Update) },
    };
  if (entry.Delete)
    return {
      Delete: { ...entry.Delete, Key: toMap(entry.Delete.Key), ExpressionAttributeValues: values(entry.Delete) },
    };
  if (entry.ConditionCheck)
    return {
      ConditionCheck: {
        ...entry.ConditionCheck,
        Key: toMap(entry.ConditionCheck.Key),
        ExpressionAttributeValues: values(entry.ConditionCheck),
      },
    };
  throw new InvalidOptionsError('A staged item must be one of Put, Update, Delete or ConditionCheck');
}

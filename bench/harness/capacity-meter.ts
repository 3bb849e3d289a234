import { GetItemCommand, type AttributeValue, type DynamoDBClient } from '@aws-sdk/client-dynamodb';

/** us-east-1, DynamoDB Standard table class, on-demand: US dollars per million request units. */
export const ON_DEMAND_PRICE = {
  region: 'us-east-1',
  writeRequestUnitPerMillion: 0.625,
  readRequestUnitPerMillion: 0.125,
} as const;

/** Where a call's units come from: DynamoDB's own `ConsumedCapacity`, or AWS's documented rules. */
export type CapacitySource = 'reported' | 'rules';

/** One DynamoDB call and what it is billed. */
export interface MeteredCall {
  readonly command: string;
  readonly writeUnits: number;
  readonly readUnits: number;
  readonly source: CapacitySource;
  /** The failure the call ended in, if any (`ConditionalCheckFailedException`, ...). */
  readonly failed?: string;
}

/** Sums the capacity of a client's calls since the last reset. */
export interface CapacityMeter {
  calls(): readonly MeteredCall[];
  reset(): void;
}

type Item = Record<string, AttributeValue>;
type ConsumedCapacity = { CapacityUnits?: number; ReadCapacityUnits?: number; WriteCapacityUnits?: number };

const KB = 1024;

/**
 * The size DynamoDB bills for an item (developer guide, "Item sizes and formats"): names and
 * strings in UTF-8 bytes, numbers about one byte per two significant digits plus one, binary
 * its length, null and booleans one byte, a list or map 3 bytes plus one per element.
 */
export function itemSize(item: Item | undefined): number {
  if (!item) return 0;
  let bytes = 0;
  for (const [name, value] of Object.entries(item)) bytes += Buffer.byteLength(name) + valueSize(value);
  return bytes;
}

function valueSize(value: AttributeValue): number {
  if (value.S !== undefined) return Buffer.byteLength(value.S);
  if (value.N !== undefined) return numberSize(value.N);
  if (value.B !== undefined) return value.B.byteLength;
  if (value.BOOL !== undefined || value.NULL !== undefined) return 1;
  if (value.SS) return value.SS.reduce((sum, s) => sum + Buffer.byteLength(s), 0);
  if (value.NS) return value.NS.reduce((sum, n) => sum + numberSize(n), 0);
  if (value.BS) return value.BS.reduce((sum, b) => sum + b.byteLength, 0);
  if (value.L) return 3 + value.L.reduce((sum, v) => sum + 1 + valueSize(v), 0);
  if (value.M)
    return 3 + Object.entries(value.M).reduce((sum, [k, v]) => sum + 1 + Buffer.byteLength(k) + valueSize(v), 0);
  return 0;
}

function numberSize(n: string): number {
  const digits = n.replace(/^-/, '').replace('.', '').replace(/^0+/, '').replace(/0+$/, '');
  return Math.ceil(Math.max(digits.length, 1) / 2) + 1;
}

const writeUnitsFor = (bytes: number) => Math.max(1, Math.ceil(bytes / KB));

/** The key of `item` under `keyName`. */
function keyOf(item: Item | undefined, keyName: string): Item | undefined {
  return item?.[keyName] ? { [keyName]: item[keyName] } : undefined;
}

/**
 * Adds `ReturnConsumedCapacity: 'TOTAL'` to every call of `client` and records the units each
 * call is billed. DynamoDB (and DynamoDB Local) return no `ConsumedCapacity` with a refused
 * write, but AWS bills it: a failed conditional write by the larger of the stored and the new
 * item, one write unit per KB; a cancelled transaction is counted like the commit it would have
 * been, two write units per item-KB (an upper bound: AWS documents no lower charge). The stored
 * item is read for that through `inspector`, a client the meter does not count.
 */
export function meterCapacity(
  client: DynamoDBClient,
  inspector: DynamoDBClient,
  keyNameOf: (tableName: string) => string,
): CapacityMeter {
  const calls: MeteredCall[] = [];
  const stored = async (tableName: string | undefined, key: Item | undefined): Promise<Item | undefined> => {
    if (!tableName || !key) return undefined;
    return (await inspector.send(new GetItemCommand({ TableName: tableName, Key: key, ConsistentRead: true }))).Item;
  };
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const command = String(context.commandName).replace(/Command$/, '');
      const input = args.input as Record<string, unknown> & { ReturnConsumedCapacity?: string };
      input.ReturnConsumedCapacity = 'TOTAL';
      // What the refused write would have met, read before the call (the call itself changes nothing when refused).
      const before = await storedBefore(command, input, stored, keyNameOf);
      try {
        const out = await next(args);
        calls.push(reported(command, out.output as { ConsumedCapacity?: ConsumedCapacity | ConsumedCapacity[] }));
        return out;
      } catch (error) {
        const name = (error as Error).name;
        if (name === 'ConditionalCheckFailedException' || name === 'TransactionCanceledException')
          calls.push({ command, ...refusedUnits(command, input, before), source: 'rules', failed: name });
        throw error;
      }
    },
    { step: 'initialize', name: 'benchCapacityMeter', priority: 'low' },
  );
  return { calls: () => [...calls], reset: () => void calls.splice(0) };
}

type StoredLookup = (tableName: string | undefined, key: Item | undefined) => Promise<Item | undefined>;
type Before = { single?: Item; transaction?: Array<Item | undefined> };

async function storedBefore(
  command: string,
  input: Record<string, unknown>,
  stored: StoredLookup,
  keyNameOf: (tableName: string) => string,
): Promise<Before> {
  const table = input.TableName as string | undefined;
  if (command === 'PutItem') return { single: await stored(table, keyOf(input.Item as Item, keyNameOf(table ?? ''))) };
  if (command === 'UpdateItem' || command === 'DeleteItem') return { single: await stored(table, input.Key as Item) };
  if (command === 'TransactWriteItems') {
    const items = (input.TransactItems ?? []) as Array<Record<string, { TableName?: string; Item?: Item; Key?: Item }>>;
    return {
      transaction: await Promise.all(
        items.map((entry) => {
          const op = entry.Put ?? entry.Update ?? entry.Delete ?? entry.ConditionCheck;
          const key = entry.Put ? keyOf(entry.Put.Item, keyNameOf(op?.TableName ?? '')) : op?.Key;
          return stored(op?.TableName, key);
        }),
      ),
    };
  }
  return {};
}

function refusedUnits(
  command: string,
  input: Record<string, unknown>,
  before: Before,
): { writeUnits: number; readUnits: number } {
  if (command === 'TransactWriteItems') {
    const items = (input.TransactItems ?? []) as Array<Record<string, { Item?: Item }>>;
    const units = items.reduce(
      (sum, entry, i) =>
        sum + 2 * writeUnitsFor(Math.max(itemSize(before.transaction?.[i]), itemSize(entry.Put?.Item))),
      0,
    );
    return { writeUnits: units, readUnits: 0 };
  }
  const newItem = command === 'PutItem' ? (input.Item as Item) : undefined;
  return { writeUnits: writeUnitsFor(Math.max(itemSize(before.single), itemSize(newItem))), readUnits: 0 };
}

function reported(command: string, output: { ConsumedCapacity?: ConsumedCapacity | ConsumedCapacity[] }): MeteredCall {
  const consumed = output.ConsumedCapacity;
  const total = (Array.isArray(consumed) ? consumed : consumed ? [consumed] : []).reduce(
    (sum, c) => sum + (c.CapacityUnits ?? 0),
    0,
  );
  const isRead = command === 'GetItem' || command === 'BatchGetItem' || command === 'Query';
  return { command, writeUnits: isRead ? 0 : total, readUnits: isRead ? total : 0, source: 'reported' };
}

/** US dollars per million requests of `writeUnits` and `readUnits` each, on-demand in {@link ON_DEMAND_PRICE}'s Region. */
export function dollarsPerMillion(writeUnits: number, readUnits: number): number {
  return (
    writeUnits * ON_DEMAND_PRICE.writeRequestUnitPerMillion + readUnits * ON_DEMAND_PRICE.readRequestUnitPerMillion
  );
}

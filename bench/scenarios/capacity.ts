import { PutItemCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import middy from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { randomUUID } from 'node:crypto';
import { DynamoDBJournal, httpIdempotency, idempotencyOf } from '../../src/index.js';
import { meterCapacity, dollarsPerMillion, type CapacityMeter, type MeteredCall } from '../harness/capacity-meter.js';
import { answerOf, powertoolsIdempotency, TTL_SECONDS, type Outcome } from '../harness/contenders.js';
import { benchClient, createTable } from '../harness/dynamodb.js';
import { jsonBodyOfSize, lambdaContext, newKey, paymentBody, paymentEvent } from '../harness/events.js';
import { gate } from '../harness/rounds.js';

/** The guards whose bill is measured, in report order. */
export const BILLED = ['powertools', 'idemkit', 'idemkitReadFirst', 'stagedOnly'] as const;
/** One of {@link BILLED}. */
export type Billed = (typeof BILLED)[number];

/** How each guard appears in reports. */
export const BILLED_TITLES: Record<Billed, string> = {
  powertools: 'Powertools 2.35',
  idemkit: 'idemkit default',
  idemkitReadFirst: "idemkit default, `reservation: 'read-first'`",
  stagedOnly: "idemkit `effects: 'staged-only'`",
};

/** What the handler does besides answering 201. */
export const HANDLERS = {
  plain: 'no write, ~200 B answer',
  write: "one payment item written (Powertools: the handler's `PutItem`; idemkit: `stage({ Put })`)",
  medium: 'no write, 3.5 KB answer (Powertools stores its JSON; idemkit compresses it: escaped, its JSON passes 4 KB)',
  large: 'no write, 40 KB answer (idemkit stores it gzip-compressed)',
} as const;
/** One of {@link HANDLERS}. */
export type HandlerKind = keyof typeof HANDLERS;

/** The situations billed, in report order. */
export const BILLED_SITUATIONS = {
  newKey: 'new key',
  replay: 'replay of a completed key',
  inFlight: 'duplicate while the first attempt runs',
  mismatch: 'same key, different body',
  handlerError: 'handler throws',
} as const;
/** One of {@link BILLED_SITUATIONS}. */
export type BilledSituation = keyof typeof BILLED_SITUATIONS;

/** What one attempt was billed. */
export interface Bill {
  readonly writeUnits: number;
  readonly readUnits: number;
  readonly dollarsPerMillion: number;
  readonly answer: string;
  readonly calls: readonly MeteredCall[];
}

/** Every bill: guard → handler → situation. */
export type CapacityResult = Record<Billed, Record<HandlerKind, Record<BilledSituation, Bill>>>;

const PAYMENTS_KEY = 'pk';

/** One guarded handler in one warm container, with its own metered client. */
interface Container {
  readonly meter: CapacityMeter;
  invoke(event: APIGatewayProxyEventV2): Promise<Outcome>;
  close(): void;
}

/** Per key: hold the handler inside it, or make it throw once. */
class Script {
  readonly failOnce = new Set<string>();
  readonly holds = new Map<string, { entered: ReturnType<typeof gate>; release: ReturnType<typeof gate> }>();

  async before(key: string): Promise<void> {
    const hold = this.holds.get(key);
    // Only the first attempt is held: a duplicate that reaches the handler (staged-only) runs through.
    this.holds.delete(key);
    if (hold) {
      hold.entered.open();
      await hold.release.opened;
    }
    if (this.failOnce.delete(key)) throw new Error('card network timeout');
  }
}

interface Tables {
  readonly endpoint: string;
  readonly idemkitTable: string;
  readonly powertoolsTable: string;
  readonly paymentsTable: string;
}

const ANSWER_BODY: Record<HandlerKind, () => string | undefined> = {
  plain: () => undefined,
  write: () => undefined,
  medium: () => jsonBodyOfSize(3_500),
  large: () => jsonBodyOfSize(40 * 1024),
};

function handlerFor(
  billed: Billed,
  kind: HandlerKind,
  client: DynamoDBClient,
  tables: Tables,
  script: Script,
): (event: APIGatewayProxyEventV2, context: Context) => Promise<APIGatewayProxyStructuredResultV2> {
  const body = ANSWER_BODY[kind]();
  return async (event, context) => {
    const key = event.headers['idempotency-key'] ?? '';
    const request = JSON.parse(event.body ?? '{}') as { amount?: number; currency?: string };
    await script.before(key);
    const id = `pay_${randomUUID().replaceAll('-', '').slice(0, 20)}`;
    if (kind === 'write') {
      const item = { pk: `pay#${id}`, idempotencyKey: key, amount: request.amount, currency: request.currency };
      if (billed === 'powertools') {
        await client.send(new PutItemCommand({ TableName: tables.paymentsTable, Item: marshall(item) }));
      } else {
        idempotencyOf(context).stage({ Put: { TableName: tables.paymentsTable, Item: item } });
      }
    }
    return {
      statusCode: 201,
      headers: { 'content-type': 'application/json', location: `/payments/${id}` },
      body: body ?? JSON.stringify({ id, amount: request.amount, currency: request.currency, status: 'succeeded' }),
    };
  };
}

function container(billed: Billed, kind: HandlerKind, tables: Tables, inspector: DynamoDBClient, script: Script) {
  const client = benchClient(tables.endpoint);
  const meter = meterCapacity(client, inspector, (table) => (table === tables.powertoolsTable ? 'id' : PAYMENTS_KEY));
  const business = handlerFor(billed, kind, client, tables, script);
  let handler: (event: APIGatewayProxyEventV2, context: Context) => Promise<unknown>;
  if (billed === 'powertools') {
    handler = middy(business).use(powertoolsIdempotency(client, tables.powertoolsTable).middleware);
  } else {
    const journal = new DynamoDBJournal({
      tableName: tables.idemkitTable,
      client,
      ...(billed === 'idemkitReadFirst' ? { reservation: 'read-first' as const } : {}),
    });
    handler = middy(business).use(
      httpIdempotency({ journal, ttlSeconds: TTL_SECONDS, effects: billed === 'stagedOnly' ? 'staged-only' : 'any' }),
    );
  }
  return {
    meter,
    invoke: async (event: APIGatewayProxyEventV2): Promise<Outcome> => {
      try {
        const response = (await handler(event, lambdaContext())) as { statusCode?: number } | undefined;
        return { statusCode: response?.statusCode };
      } catch (error) {
        return { error: (error as Error).name };
      }
    },
    close: () => client.destroy(),
  } satisfies Container;
}

function billOf(meter: CapacityMeter, outcome: Outcome): Bill {
  const calls = meter.calls();
  const writeUnits = calls.reduce((sum, c) => sum + c.writeUnits, 0);
  const readUnits = calls.reduce((sum, c) => sum + c.readUnits, 0);
  return {
    writeUnits,
    readUnits,
    dollarsPerMillion: dollarsPerMillion(writeUnits, readUnits),
    answer: answerOf(outcome),
    calls,
  };
}

async function observe(attempt: Container, event: APIGatewayProxyEventV2): Promise<Bill> {
  attempt.meter.reset();
  return billOf(attempt.meter, await attempt.invoke(event));
}

async function billSituations(
  billed: Billed,
  kind: HandlerKind,
  tables: Tables,
  inspector: DynamoDBClient,
): Promise<Record<BilledSituation, Bill>> {
  const script = new Script();
  const main = container(billed, kind, tables, inspector, script);
  const other = container(billed, kind, tables, inspector, script);
  try {
    const completed = newKey();
    const newKeyBill = await observe(main, paymentEvent(completed));
    const replay = await observe(main, paymentEvent(completed));
    const mismatch = await observe(main, paymentEvent(completed, paymentBody(completed, 1)));

    // A duplicate arrives while the first attempt is inside its handler. Under the leased protocol
    // the duplicate is refused; under staged-only both run, the duplicate commits first and the first
    // attempt's commit is the one refused (it replays the winner): that refused attempt is the
    // duplicate's price there.
    const running = newKey();
    const hold = { entered: gate(), release: gate() };
    script.holds.set(running, hold);
    main.meter.reset();
    const first = main.invoke(paymentEvent(running));
    await hold.entered.opened;
    const duplicate = await observe(other, paymentEvent(running));
    hold.release.open();
    const firstBill = billOf(main.meter, await first);
    const inFlight = billed === 'stagedOnly' ? firstBill : duplicate;

    const failing = newKey();
    script.failOnce.add(failing);
    const handlerError = await observe(main, paymentEvent(failing));
    return { newKey: newKeyBill, replay, inFlight, mismatch, handlerError };
  } finally {
    main.close();
    other.close();
  }
}

/**
 * Bills every situation for every guard and handler against the DynamoDB server at `endpoint`,
 * on fresh tables. Deterministic: capacity depends on item sizes, not on the machine.
 */
export async function measureCapacity(endpoint: string): Promise<CapacityResult> {
  const admin = benchClient(endpoint);
  try {
    const result = {} as CapacityResult;
    for (const billed of BILLED) {
      result[billed] = {} as CapacityResult[Billed];
      for (const kind of Object.keys(HANDLERS) as HandlerKind[]) {
        const tables: Tables = {
          endpoint,
          idemkitTable: await createTable(admin, 'capacity-journal', 'pk'),
          powertoolsTable: await createTable(admin, 'capacity-powertools', 'id'),
          paymentsTable: await createTable(admin, 'capacity-payments', PAYMENTS_KEY),
        };
        result[billed][kind] = await billSituations(billed, kind, tables, admin);
      }
    }
    return result;
  } finally {
    admin.destroy();
  }
}

import { PutItemCommand, TransactWriteItemsCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import middy from '@middy/core';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { randomUUID } from 'node:crypto';
import { DynamoDBJournal, httpIdempotency, idempotencyOf } from '../../src/index.js';
import { paymentResponse, recordPayment, type PaymentItem } from '../fixtures/record-payment.js';
import { powertoolsIdempotency, TTL_SECONDS, type Outcome } from './contenders.js';
import { benchClient, countCalls, type CallCounter } from './dynamodb.js';
import { lambdaContext } from './events.js';
import { requestPk } from '../../src/entries/journal.js';

/** The contenders of the writing scenario, in the order of the first round. */
export const WRITERS = ['stagedOnly', 'bareTransaction', 'idemkit', 'powertools'] as const;
/** One of {@link WRITERS}. */
export type WriterName = (typeof WRITERS)[number];
/** The three libraries' setups (the bare transaction guards nothing: it is the floor). */
export const GUARDED_WRITERS = ['stagedOnly', 'idemkit', 'powertools'] as const;

/** How each contender appears in reports. */
export const WRITER_TITLES: Record<WriterName, string> = {
  powertools: 'Powertools (handler `PutItem`)',
  idemkit: 'idemkit default (write staged)',
  stagedOnly: "idemkit `effects: 'staged-only'`",
  bareTransaction: 'bare `TransactWriteItems` (floor)',
};

/** Write capacity units reported by DynamoDB (`ReturnConsumedCapacity: 'TOTAL'`), by command. */
export interface CapacityMeter {
  byCommand(): Record<string, number>;
  reset(): void;
}

/** One contender in one warm container. */
export interface Writer {
  readonly name: WriterName;
  readonly calls: CallCounter;
  /** Present when the setup asked for capacity. */
  readonly capacity?: CapacityMeter;
  /** Milliseconds spent inside DynamoDB calls (send to answer, marshalling included) since the last reset. */
  readonly callMs: { total(): number; byCommand(): Record<string, number>; reset(): void };
  invoke(event: APIGatewayProxyEventV2): Promise<Outcome>;
  close(): void;
}

/** Where the tables live and what each container measures. */
export interface WriterSetup {
  readonly endpoint: string;
  readonly idemkitTable: string;
  readonly powertoolsTable: string;
  /** The payments table every handler writes its payment item into (partition key `pk`). */
  readonly paymentsTable: string;
  readonly measureCapacity?: boolean;
  /** Runs inside the handler before it writes, with the request's key (the same-key race counts and slows runs here). */
  readonly beforeWrite?: (idempotencyKey: string) => Promise<void>;
}

/** A warm container running `name` in front of the writing payments handler. */
export function buildWriter(name: WriterName, setup: WriterSetup): Writer {
  const client = benchClient(setup.endpoint);
  const calls = countCalls(client);
  const capacity = setup.measureCapacity ? meterCapacity(client) : undefined;
  const callMs = timeCalls(client);
  const invoke = invokerFor(name, client, setup);
  return { name, calls, capacity, callMs, invoke: (event) => run(() => invoke(event)), close: () => client.destroy() };
}

function invokerFor(
  name: WriterName,
  client: DynamoDBClient,
  setup: WriterSetup,
): (event: APIGatewayProxyEventV2) => Promise<unknown> {
  const before = setup.beforeWrite ?? (async () => undefined);
  if (name === 'bareTransaction') return bareTransaction(client, setup);
  if (name === 'powertools') {
    const { middleware } = powertoolsIdempotency(client, setup.powertoolsTable);
    const handler = middy(
      recordPayment(async (item) => {
        await before(item.idempotencyKey);
        await client.send(new PutItemCommand({ TableName: setup.paymentsTable, Item: marshall(item) }));
      }),
    ).use(middleware);
    return (event) => handler(event, lambdaContext());
  }
  const journal = new DynamoDBJournal({ tableName: setup.idemkitTable, client });
  const handler = middy(
    recordPayment(async (item, context) => {
      await before(item.idempotencyKey);
      idempotencyOf(context).stage({ Put: { TableName: setup.paymentsTable, Item: { ...item } } });
    }),
  ).use(httpIdempotency({ journal, ttlSeconds: TTL_SECONDS, effects: name === 'stagedOnly' ? 'staged-only' : 'any' }));
  return (event) => handler(event, lambdaContext());
}

/**
 * The physical floor of a one-call design: the same 201 answer, then one `TransactWriteItems`
 * of the same two items — a completed record shaped like idemkit's (condition: absent) and the
 * payment item — with nothing else around it.
 */
function bareTransaction(
  client: DynamoDBClient,
  setup: WriterSetup,
): (event: APIGatewayProxyEventV2) => Promise<unknown> {
  return async (event) => {
    const request = JSON.parse(event.body ?? '{}') as { amount?: number; currency?: string };
    const { id, answer } = paymentResponse(request);
    const key = event.headers['idempotency-key'] ?? '';
    const now = Date.now();
    const record = floorRecordItem(key, answer, now);
    const payment: PaymentItem = {
      pk: `pay#${id}`,
      idempotencyKey: key,
      amount: request.amount,
      currency: request.currency,
      status: 'succeeded',
      createdAt: now,
    };
    await client.send(
      new TransactWriteItemsCommand({
        TransactItems: [
          {
            Put: {
              TableName: setup.idemkitTable,
              Item: marshall(record),
              ConditionExpression: 'attribute_not_exists(pk)',
            },
          },
          { Put: { TableName: setup.paymentsTable, Item: marshall(payment) } },
        ],
      }),
    );
    return answer;
  };
}

function meterCapacity(client: DynamoDBClient): CapacityMeter {
  const units = new Map<string, number>();
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const input = args.input as { ReturnConsumedCapacity?: string };
      input.ReturnConsumedCapacity = 'TOTAL';
      const out = await next(args);
      const consumed = (
        out.output as { ConsumedCapacity?: { CapacityUnits?: number } | Array<{ CapacityUnits?: number }> }
      ).ConsumedCapacity;
      const total = (Array.isArray(consumed) ? consumed : consumed ? [consumed] : []).reduce(
        (sum, c) => sum + (c.CapacityUnits ?? 0),
        0,
      );
      const name = String(context.commandName).replace(/Command$/, '');
      units.set(name, (units.get(name) ?? 0) + total);
      return out;
    },
    { step: 'initialize', name: 'benchConsumedCapacity' },
  );
  return { byCommand: () => Object.fromEntries(units), reset: () => units.clear() };
}

function timeCalls(client: DynamoDBClient): Writer['callMs'] {
  const ms = new Map<string, number>();
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const started = performance.now();
      try {
        return await next(args);
      } finally {
        const name = String(context.commandName).replace(/Command$/, '');
        ms.set(name, (ms.get(name) ?? 0) + performance.now() - started);
      }
    },
    { step: 'initialize', name: 'benchTimeCalls', priority: 'high' },
  );
  return {
    total: () => [...ms.values()].reduce((a, b) => a + b, 0),
    byCommand: () => Object.fromEntries(ms),
    reset: () => ms.clear(),
  };
}

async function run(invocation: () => Promise<unknown>): Promise<Outcome> {
  try {
    const response = (await invocation()) as { statusCode?: number } | undefined;
    return { statusCode: response?.statusCode };
  } catch (error) {
    return { error: (error as Error).name };
  }
}

/**
 * The completed record a bare transaction writes for the floor: shaped like idemkit's (every
 * attribute a real record carries, the answer stored inline), so the floor moves the same bytes.
 */
export function floorRecordItem(
  key: string,
  answer: { readonly body?: string; readonly headers?: unknown },
  nowEpochMs: number,
): Record<string, unknown> {
  return {
    pk: requestPk('tenant-1', 'POST /payments', key),
    kind: 'request',
    status: 'COMPLETED',
    fingerprint: 'f'.repeat(64),
    leaseToken: randomUUID(),
    leaseUntil: nowEpochMs,
    attempt: 1,
    createdAt: nowEpochMs,
    updatedAt: nowEpochMs,
    expiresAt: Math.floor(nowEpochMs / 1000) + TTL_SECONDS,
    evidence: {},
    effectStarted: false,
    responseEncoding: 'json',
    response: JSON.stringify({ value: { statusCode: 201, body: answer.body, headers: answer.headers } }),
  };
}

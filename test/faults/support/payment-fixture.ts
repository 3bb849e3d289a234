import { UpdateItemCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import middy from '@middy/core';
import {
  DynamoDBJournal,
  httpIdempotency,
  idempotencyOf,
  makeIdempotent,
  type HttpIdempotencyOptions,
} from '../../../src/index.js';

/** The domain tables a payment touches. */
export interface PaymentTables {
  /** Incremented by a write staged into the completion transaction: committed at most once per key. */
  readonly ledger: string;
  /** Incremented by a direct write after `beginEffect`: stands for a call to a payment rail. */
  readonly rail: string;
}

/** A point inside the handler where a test (or a crash worker) can stop it. */
export type HandlerStep = 'before-begin-effect' | 'after-begin-effect' | 'after-side-effect';

/** How the payment handler behaves. */
export interface PaymentBehaviour {
  /** Calls `beginEffect` and charges the rail (a write outside the completion transaction). @default true */
  readonly charge?: boolean;
  /** Stages the ledger increment into the completion transaction. @default true */
  readonly stage?: boolean;
  /** Status code answered. @default 201 */
  readonly statusCode?: number;
  /** Awaited at each step, so a test can stall or end the attempt there. */
  readonly onStep?: (step: HandlerStep) => Promise<void>;
}

/** An `onStep` that stalls the handler at `at` until `resume()`; `stalled` resolves once it got there. */
export function stallAt(at: HandlerStep) {
  let resume: () => void = () => undefined;
  let reached: () => void = () => undefined;
  const stalled = new Promise<void>((resolve) => (reached = resolve));
  const onStep = async (step: HandlerStep) => {
    if (step !== at) return;
    reached();
    await new Promise<void>((resolve) => (resume = resolve));
  };
  return { onStep, stalled, resume: () => resume() };
}

/**
 * A payment handler: stages a ledger increment (committed with the completion), then marks the
 * effect begun and charges the rail, recording the charge as evidence. Its answer names the
 * attempt that produced it, so a replay can be traced to its origin.
 */
export function paymentHandler(client: DynamoDBClient, tables: PaymentTables, behaviour: PaymentBehaviour = {}) {
  return async (_event: unknown, context: object) => {
    const scope = idempotencyOf(context);
    if (behaviour.stage ?? true) {
      scope.stage({
        Update: {
          TableName: tables.ledger,
          Key: { pk: scope.key },
          UpdateExpression: 'ADD #n :one',
          ExpressionAttributeNames: { '#n': 'count' },
          ExpressionAttributeValues: { ':one': 1 },
        },
      });
    }
    if (behaviour.charge ?? true) {
      await behaviour.onStep?.('before-begin-effect');
      await scope.beginEffect('charge');
      await behaviour.onStep?.('after-begin-effect');
      await client.send(
        new UpdateItemCommand({
          TableName: tables.rail,
          Key: { pk: { S: scope.key } },
          UpdateExpression: 'ADD #n :one',
          ExpressionAttributeNames: { '#n': 'count' },
          ExpressionAttributeValues: { ':one': { N: '1' } },
        }),
      );
      await scope.recordEvidence({ chargeId: `ch_${scope.deriveKey('charge').slice(0, 12)}` });
      await behaviour.onStep?.('after-side-effect');
    }
    return {
      statusCode: behaviour.statusCode ?? 201,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ paymentId: `pay_${scope.deriveKey('payment').slice(0, 12)}`, attempt: scope.attempt }),
    };
  };
}

/** A guarded payment handler, as one Lambda container runs it (no Lambda deadline: the lease is `leaseMs`). */
export function guardedPayment(
  journal: DynamoDBJournal,
  client: DynamoDBClient,
  tables: PaymentTables,
  behaviour: PaymentBehaviour = {},
  options: Partial<HttpIdempotencyOptions> = {},
) {
  const handler = middy(paymentHandler(client, tables, behaviour)).use(httpIdempotency({ journal, ...options }));
  return (event: unknown) =>
    handler(event as never, { awsRequestId: `req-${Math.random().toString(36).slice(2)}` } as never) as Promise<{
      statusCode: number;
      headers?: Record<string, string>;
      body: string;
    }>;
}

/** The payment as a plain function guarded by `makeIdempotent`, keyed by `input.key`. */
export function idempotentPayment(
  journal: DynamoDBJournal,
  client: DynamoDBClient,
  tables: PaymentTables,
  behaviour: PaymentBehaviour = {},
  leaseMs?: number,
) {
  const handler = paymentHandler(client, tables, behaviour);
  return makeIdempotent((input: { key: string; amount: number }, context: object) => handler(input, context), {
    journal,
    operation: 'POST /payments',
    key: (input) => input.key,
    leaseMs,
  });
}

/** The count a table holds for `pk` (0 when absent). */
export async function countOf(client: DynamoDBClient, table: string, pk: string): Promise<number> {
  const out = await DynamoDBDocumentClient.from(client).send(
    new GetCommand({ TableName: table, Key: { pk }, ConsistentRead: true }),
  );
  return Number(out.Item?.count ?? 0);
}

/** The v2 event of `POST /payments` with an idempotency key. */
export function paymentEvent(key: string, amount = 1250) {
  return {
    version: '2.0',
    routeKey: 'POST /payments',
    rawPath: '/payments',
    rawQueryString: '',
    headers: { 'content-type': 'application/json', 'idempotency-key': key },
    requestContext: {
      http: { method: 'POST', path: '/payments', protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: 'test' },
      requestId: 'id',
      routeKey: 'POST /payments',
      stage: '$default',
    },
    body: JSON.stringify({ amount, currency: 'EUR' }),
    isBase64Encoded: false,
  };
}

/** The problem `type` of an answer, or undefined when it is not a problem. */
export function problemType(answer: { headers?: Record<string, string>; body: string }): string | undefined {
  return answer.headers?.['content-type'] === 'application/problem+json'
    ? (JSON.parse(answer.body) as { type: string }).type
    : undefined;
}

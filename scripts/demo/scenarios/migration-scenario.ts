import { IdempotencyConfig } from '@aws-lambda-powertools/idempotency';
import { DynamoDBPersistenceLayer } from '@aws-lambda-powertools/idempotency/dynamodb';
import { makeHandlerIdempotent } from '@aws-lambda-powertools/idempotency/middleware';
import middy from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';

import { fromPowertools } from '../../../src/entries/migration.js';
import { createPaymentHandler } from '../../../src/handlers/factories/create-payment.js';
import { localLambdaContext } from '../../local/lambda-context.js';
import { createStringKeyTable } from '../../local/tables.js';
import { DEMO_LEASE_MS, type DemoContext } from '../demo-context.js';
import { newIdempotencyKey } from '../../../src/client/index.js';

const FUNCTION_NAME = 'create-payment';
/** How the function's Powertools idempotency was configured before the deploy. */
const POWERTOOLS_CONFIG = {
  eventKeyJmesPath: 'headers."idempotency-key"',
  payloadValidationJmesPath: 'powertools_json(body)',
};

/**
 * A payment Powertools idempotency completed before the function moved to idemkit; the client,
 * whose answer was lost, retries after the deploy. idemkit finds the Powertools record and
 * replays it instead of charging again.
 */
export async function migratedReplay(ctx: DemoContext): Promise<void> {
  const { narrator, capture, stack } = ctx;
  narrator.scenario(
    9,
    'A retry across the move from Powertools idempotency',
    'Powertools handled the payment; its answer was lost; the function is redeployed with idemkit before the client retries.',
  );
  const powertoolsTable = 'powertools-idempotency';
  await createStringKeyTable(stack.client, powertoolsTable, 'id');
  const key = newIdempotencyKey();
  const event = ctx.paymentRequest(key, {
    amount: 2599,
    currency: 'EUR',
    orderId: 'ord-1008',
    items: [{ sku: 'sku-red-mug', quantity: 1 }],
  });
  const chargesBefore = ctx.charges;

  narrator.event('client', `POST /payments  Idempotency-Key: ${key.slice(0, 8)}…  (function still on Powertools)`);
  const original = await powertoolsGuarded(ctx, powertoolsTable)(event);
  ctx.answer('powertools', original, undefined);
  narrator.event(
    'network',
    '✂ the response is dropped; meanwhile the function is deployed with httpIdempotency({ migrateFrom })',
  );

  const migrateFrom = fromPowertools({
    tableName: powertoolsTable,
    client: stack.client,
    keyPrefix: FUNCTION_NAME,
    ...POWERTOOLS_CONFIG,
  });
  const migrated = createPaymentHandler({
    journal: ctx.journal,
    paymentsTable: stack.tables.payments,
    rail: ctx.rail,
    guardOptions: { leaseMs: DEMO_LEASE_MS, logger: capture.logger, metrics: capture.metrics, migrateFrom },
  });
  const call = (request: APIGatewayProxyEventV2) =>
    migrated(
      request,
      localLambdaContext({ functionName: FUNCTION_NAME }),
    ) as Promise<APIGatewayProxyStructuredResultV2>;
  narrator.event('client', 'retries the same intent with the same key');
  const retry = await call(event);
  const retryLine = capture.drain()[0];
  ctx.answer('api', retry, retryLine);
  narrator.event(
    'idemkit',
    `new key → read the Powertools record → replayed and stored as its own  [journal_calls=${retryLine?.journalCalls}]`,
  );
  const again = await call(event);
  const againLine = capture.drain()[0];
  ctx.answer('api', again, againLine);
  narrator.event(
    'idemkit',
    `answered from its own journal, Powertools not read  [journal_calls=${againLine?.journalCalls}]`,
  );

  const charged = ctx.charges - chargesBefore;
  const held =
    retry.body === original.body &&
    again.body === original.body &&
    retry.headers?.['Idempotent-Replayed'] === 'true' &&
    charged === 1;
  narrator.verdict(
    'migrated replay',
    held,
    `the payment Powertools made is replayed byte for byte after the move: ${charged} charge at the rail`,
  );
}

/** The function as it ran before the move: Powertools' middleware over a handler that charges the rail. */
function powertoolsGuarded(ctx: DemoContext, tableName: string) {
  const persistenceStore = new DynamoDBPersistenceLayer({ tableName, awsSdkV3Client: ctx.stack.client });
  const handler = middy(async (event: APIGatewayProxyEventV2) => {
    const { amount, currency } = JSON.parse(event.body ?? '{}') as { amount: number; currency: string };
    const { chargeId } = await ctx.rail.charge({
      amount,
      currency,
      idempotencyKey: `powertools-${event.headers['idempotency-key']}`,
    });
    const paymentId = `pay_${chargeId.slice(-12)}`;
    return {
      statusCode: 201,
      headers: { 'content-type': 'application/json', location: `/payments/${paymentId}` },
      body: JSON.stringify({ paymentId, amount, currency, chargeId, status: 'CAPTURED' }),
    };
  }).use(
    makeHandlerIdempotent({
      persistenceStore,
      keyPrefix: FUNCTION_NAME,
      config: new IdempotencyConfig(POWERTOOLS_CONFIG),
    }),
  );
  return (event: APIGatewayProxyEventV2) =>
    handler(event, localLambdaContext({ functionName: FUNCTION_NAME })) as Promise<APIGatewayProxyStructuredResultV2>;
}

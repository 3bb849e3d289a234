import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { DynamoDBJournal, idempotencyOf, MetricName } from '../../../src/index.js';
import { guardedRoute } from '../../../src/handlers/factories/guarded-route.js';
import { json, jsonBody, problem } from '../../../src/handlers/http-responses.js';
import { parsePaymentRequest } from '../../../src/handlers/payment-request.js';
import { PaymentsEventType, PaymentsOperation } from '../../../src/handlers/service-config.js';
import { applyMrscProfile } from '../../../test/multi-region/support/mrsc-profile.js';
import { localLambdaContext } from '../../local/lambda-context.js';
import { createStringKeyTable } from '../../local/tables.js';
import { DEMO_LEASE_MS, type DemoContext } from '../demo-context.js';
import { strongConsistency } from '../../../src/entries/multi-region.js';
import { newIdempotencyKey } from '../../../src/client/index.js';

const REGIONS = ['us-east-1', 'us-west-2'] as const;
const TRANSACTIONS = ['TransactWriteItemsCommand', 'TransactGetItemsCommand'];

/**
 * The API runs active-active in two Regions over one journal on a global table with multi-Region
 * strong consistency (MRSC). The first attempt is charged in us-east-1, its answer is lost, and
 * the client's retry is routed to us-west-2, whose reservation also meets a cross-Region write
 * conflict once. us-west-2 reads the record us-east-1 completed and replays it.
 *
 * DynamoDB Local has no global tables: each "Region" is its own client and journal over one table
 * (which gives every Region the latest item, as MRSC does), with the MRSC profile the multi-Region
 * tests use (transactions refused, `ReplicatedWriteConflictException` injected on a chosen write).
 */
export async function crossRegionRetry(ctx: DemoContext): Promise<void> {
  const { narrator, capture, stack } = ctx;
  narrator.scenario(
    11,
    'A retry that crosses Regions after a lost response',
    'The API runs in two Regions over one journal table, replicated with strong consistency. us-east-1 charges the card; its 201 is lost; the retry is routed to us-west-2.',
  );
  const tableName = `journal-mrsc-${newIdempotencyKey().slice(0, 8)}`;
  await createStringKeyTable(stack.client, tableName, 'pk', { stream: true });
  const regions = REGIONS.map((name) => region(ctx, tableName, name));
  const [east, west] = regions as [Region, Region];
  const key = newIdempotencyKey();
  const event = ctx.paymentRequest(key, {
    amount: 4200,
    currency: 'EUR',
    orderId: 'ord-1011',
    items: [{ sku: 'sku-red-mug', quantity: 2 }],
  });
  const chargesBefore = ctx.charges;
  const conflictsBefore = capture.metricCounts.get(MetricName.replicatedWriteConflict) ?? 0;

  narrator.event('client', `POST /payments  Idempotency-Key: ${key.slice(0, 8)}…  → us-east-1`);
  const first = await east.call(event);
  ctx.answer('us-east-1', first, capture.drain()[0]);
  narrator.event('network', '✂ the response is dropped; the client times out, and its retry is routed to us-west-2');
  west.profile.conflictOn('reserve', 1);
  narrator.event('client', 'retries the same intent with the same key  → us-west-2');
  const retry = await west.call(event);
  const retryLine = capture.drain()[0];
  ctx.answer('us-west-2', retry, retryLine);
  const conflicts = (capture.metricCounts.get(MetricName.replicatedWriteConflict) ?? 0) - conflictsBefore;
  narrator.event(
    'idemkit',
    `us-west-2 claims the key; DynamoDB reports ${conflicts} clashing write from the other Region, so it tries again and finds us-east-1's finished payment  [journal_calls=${retryLine?.journalCalls}]`,
  );

  const charged = ctx.charges - chargesBefore;
  const transactions = regions.flatMap((r) => r.profile.sent).filter((name) => TRANSACTIONS.includes(name)).length;
  const held =
    first.statusCode === 201 &&
    retry.body === first.body &&
    retry.headers?.['Idempotent-Replayed'] === 'true' &&
    charged === 1 &&
    conflicts === 1 &&
    transactions === 0;
  narrator.verdict(
    'retry across Regions',
    held,
    `us-west-2 answers the retry with us-east-1's payment, byte for byte: ${charged} charge at the rail, ${transactions === 0 ? 'no DynamoDB transaction' : `${transactions} DynamoDB transactions`} (a table replicated this way refuses them)`,
  );
}

interface Region {
  readonly profile: ReturnType<typeof applyMrscProfile>;
  call(event: APIGatewayProxyEventV2): Promise<APIGatewayProxyStructuredResultV2>;
}

/** One Region's `POST /payments` on the shared MRSC journal: single-item writes only, so no `stage()`. */
function region(ctx: DemoContext, tableName: string, name: string): Region {
  // One signing Region for every "Region": DynamoDB Local keeps a table per signing Region, and the one table is the point.
  const client = new DynamoDBClient({
    endpoint: ctx.stack.dynamodb.endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  const profile = applyMrscProfile(client);
  const journal = new DynamoDBJournal({ tableName, client, multiRegion: strongConsistency() });
  const handler = guardedRoute(
    {
      journal,
      paymentsTable: ctx.stack.tables.payments,
      rail: ctx.rail,
      guardOptions: { leaseMs: DEMO_LEASE_MS, logger: ctx.capture.logger, metrics: ctx.capture.metrics },
    },
    PaymentsOperation.createPayment,
  ).handler(async function createPaymentInRegion(event, context) {
    const parsed = parsePaymentRequest(jsonBody(event));
    if (!parsed.ok) return problem(400, 'invalid-payment', parsed.error);
    const request = parsed.value;
    const guard = idempotencyOf(context);
    await guard.beginEffect('charge');
    const { chargeId } = await ctx.rail.charge({
      amount: request.amount,
      currency: request.currency,
      idempotencyKey: guard.deriveKey('charge'),
    });
    await guard.recordEvidence({ chargeId });
    const paymentId = `pay_${guard.deriveKey('payment')}`;
    // The event travels inside the completed record: an MRSC table has no transactions.
    guard.publish({ type: PaymentsEventType.orderConfirmed, detail: { paymentId, orderId: request.orderId } });
    return json(201, { paymentId, amount: request.amount, currency: request.currency, chargeId, chargedIn: name });
  });
  return {
    profile,
    call: (event) =>
      handler(
        event,
        localLambdaContext({ functionName: 'create-payment' }),
      ) as Promise<APIGatewayProxyStructuredResultV2>,
  };
}

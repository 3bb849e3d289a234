import { DynamoDBDocumentClient, ScanCommand } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { DynamoDBJournal } from '../../src/index.js';
import { requestPk } from '../../src/entries/journal.js';
import { createPaymentHandler } from '../../src/handlers/factories/create-payment.js';
import { createRefundHandler } from '../../src/handlers/factories/create-refund.js';
import { paymentsLambdalithHandler } from '../../src/handlers/factories/payments-lambdalith.js';
import { createFakePaymentRail, type PaymentRail } from '../../src/handlers/payment-rail.js';
import { PaymentsOperation } from '../../src/handlers/service-config.js';
import { httpApiEvent, lambdaContext, type HttpRequestOptions } from '../../src/testing/index.js';
import { createJournalTable, createTable, localClient } from '../support/dynamodb.js';

type Handler = (event: APIGatewayProxyEventV2, context: Context) => Promise<APIGatewayProxyStructuredResultV2>;
type Answer = { status: number; headers: Record<string, string>; body: string };

const TENANT = 'user-7';
const PAYMENT = { amount: 1999, currency: 'EUR', orderId: 'ord-1', items: [{ sku: 'sku-red-mug', quantity: 2 }] };
const silent = { info: () => {}, warn: () => {}, error: () => {}, debug: () => {} };

/**
 * The example service on DynamoDB Local with both doors onto one journal and one payments table:
 * the per-route Middy functions (routes `POST /payments`, `POST /payments/{id}/refunds`) and the
 * Lambdalith (route `ANY /{proxy+}` of its own HTTP API), each fed the HTTP API (v2) event its route
 * receives, with a JWT authorizer's `sub`. One fake payment rail stands behind both, counting calls.
 */
async function service(rail: PaymentRail & { readonly calls: number } = createFakePaymentRail()) {
  const client = localClient();
  const docClient = DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });
  const journalTable = await createJournalTable(client);
  const paymentsTable = await createTable(client, 'payments', 'paymentId');
  const journal = new DynamoDBJournal({ tableName: journalTable, client });
  const deps = { journal, docClient, paymentsTable, rail, guardOptions: { logger: silent } };
  const perRoute = {
    createPayment: createPaymentHandler(deps) as unknown as Handler,
    createRefund: createRefundHandler(deps) as unknown as Handler,
  };
  const lambdalith = paymentsLambdalithHandler(deps) as unknown as Handler;

  const answer = async (handler: Handler, event: APIGatewayProxyEventV2): Promise<Answer> => {
    const result = await handler(event, lambdaContext());
    const headers = Object.fromEntries(
      Object.entries(result.headers ?? {}).map(([name, value]) => [name.toLowerCase(), String(value)]),
    );
    return { status: result.statusCode ?? 200, headers, body: result.body ?? '' };
  };
  const request = (options: HttpRequestOptions) => ({ principal: TENANT, method: 'POST', ...options });
  return {
    journal,
    rail,
    /** Through the per-route Middy function of `route` (the HTTP API route it is integrated with). */
    perRoute: (route: '/payments' | '/payments/{id}/refunds', options: HttpRequestOptions) =>
      answer(
        route === '/payments' ? perRoute.createPayment : perRoute.createRefund,
        httpApiEvent(request({ ...options, route })),
      ),
    /** Through the Lambdalith, behind its API's `ANY /{proxy+}` route. */
    lambdalith: (options: HttpRequestOptions) => answer(lambdalith, proxyEvent(request(options))),
    payments: async () =>
      (await docClient.send(new ScanCommand({ TableName: paymentsTable, ConsistentRead: true }))).Items ?? [],
  };
}

/** The event of an `ANY /{proxy+}` route: its route key names the route, not the method. */
function proxyEvent(options: HttpRequestOptions): APIGatewayProxyEventV2 {
  const event = httpApiEvent({ ...options, route: '/{proxy+}' });
  const routeKey = 'ANY /{proxy+}';
  return { ...event, routeKey, requestContext: { ...event.requestContext, routeKey } };
}

/** A rail whose charges wait until `open()`. */
function gatedRail() {
  const rail = createFakePaymentRail();
  let open!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  let charging!: () => void;
  const charged = new Promise<void>((resolve) => (charging = resolve));
  return {
    open,
    charged,
    get calls() {
      return rail.calls;
    },
    async charge(request: Parameters<PaymentRail['charge']>[0]) {
      charging();
      await gate;
      return rail.charge(request);
    },
    refund: rail.refund.bind(rail),
  };
}

const newKey = () => `key-${Math.random().toString(36).slice(2)}`;

describe('the example service: a key moves between the per-route functions and the Lambdalith', () => {
  it('replays through the Lambdalith a payment the per-route function made: same record, no second charge', async () => {
    const svc = await service();
    const key = newKey();

    const first = await svc.perRoute('/payments', { path: '/payments', idempotencyKey: key, body: PAYMENT });
    const moved = await svc.lambdalith({ path: '/payments', idempotencyKey: key, body: PAYMENT });

    expect(first.status).toBe(201);
    expect(moved.status).toBe(201);
    expect(moved.body).toBe(first.body);
    expect(moved.headers['idempotent-replayed']).toBe('true');
    expect(moved.headers.location).toBe(first.headers.location);
    expect(svc.rail.calls).toBe(1);
    expect(await svc.payments()).toHaveLength(1);
    expect((await svc.journal.get(requestPk(TENANT, PaymentsOperation.createPayment, key)))?.status).toBe('COMPLETED');
  });

  it('replays through the per-route function a payment the Lambdalith made: same record, no second charge', async () => {
    const svc = await service();
    const key = newKey();

    const first = await svc.lambdalith({ path: '/payments', idempotencyKey: key, body: PAYMENT });
    const moved = await svc.perRoute('/payments', { path: '/payments', idempotencyKey: key, body: PAYMENT });

    expect(first.status).toBe(201);
    expect(JSON.parse(first.body)).toMatchObject({ tenantId: TENANT, amount: 1999, status: 'CAPTURED' });
    expect(moved.status).toBe(201);
    expect(moved.body).toBe(first.body);
    expect(moved.headers['idempotent-replayed']).toBe('true');
    expect(svc.rail.calls).toBe(1);
    expect(await svc.payments()).toHaveLength(1);
    expect((await svc.journal.get(requestPk(TENANT, PaymentsOperation.createPayment, key)))?.status).toBe('COMPLETED');
  });

  it('scopes a refund alike through both doors: the route pattern /payments/:id/refunds is the operation POST /payments/{id}/refunds', async () => {
    const svc = await service();
    const payment = JSON.parse(
      (await svc.perRoute('/payments', { path: '/payments', idempotencyKey: newKey(), body: PAYMENT })).body,
    );
    const path = `/payments/${payment.paymentId}/refunds`;
    const key = newKey();

    const first = await svc.lambdalith({ path, idempotencyKey: key, body: { amount: 500 } });
    const moved = await svc.perRoute('/payments/{id}/refunds', { path, idempotencyKey: key, body: { amount: 500 } });

    expect(first.status).toBe(201);
    expect(moved.body).toBe(first.body);
    expect(moved.headers['idempotent-replayed']).toBe('true');
    expect(svc.rail.calls).toBe(2);
    expect((await svc.journal.get(requestPk(TENANT, PaymentsOperation.createRefund, key)))?.status).toBe('COMPLETED');
  });

  it('answers 409 through the Lambdalith while the per-route function still runs the key, and charges once', async () => {
    const rail = gatedRail();
    const svc = await service(rail);
    const key = newKey();
    const first = svc.perRoute('/payments', { path: '/payments', idempotencyKey: key, body: PAYMENT });
    await rail.charged;

    // Should the duplicate run, it would wait at the same gate: a timer opens it, so the test fails instead of hanging.
    const opener = setTimeout(rail.open, 5_000);
    const duplicate = await svc.lambdalith({ path: '/payments', idempotencyKey: key, body: PAYMENT });
    clearTimeout(opener);
    rail.open();
    const settled = await first;
    const retry = await svc.lambdalith({ path: '/payments', idempotencyKey: key, body: PAYMENT });

    expect(duplicate.status).toBe(409);
    expect(duplicate.headers['retry-after']).toBeDefined();
    expect(settled.status).toBe(201);
    expect(retry.body).toBe(settled.body);
    expect(rail.calls).toBe(1);
  });

  it('refuses through the Lambdalith the key the per-route function ran with another body (422), charging nothing', async () => {
    const svc = await service();
    const key = newKey();
    await svc.perRoute('/payments', { path: '/payments', idempotencyKey: key, body: PAYMENT });

    const reused = await svc.lambdalith({ path: '/payments', idempotencyKey: key, body: { ...PAYMENT, amount: 5 } });

    expect(reused.status).toBe(422);
    expect(JSON.parse(reused.body)).toMatchObject({ type: 'urn:idemkit:problem:idempotency-key-reused' });
    expect(svc.rail.calls).toBe(1);
  });

  it('keeps tenants apart through the Lambdalith: another caller with the same key runs in its own scope', async () => {
    const svc = await service();
    const key = newKey();
    await svc.perRoute('/payments', { path: '/payments', idempotencyKey: key, body: PAYMENT });

    const other = await svc.lambdalith({ path: '/payments', idempotencyKey: key, body: PAYMENT, principal: 'user-8' });

    expect(other.status).toBe(201);
    expect(other.headers['idempotent-replayed']).toBeUndefined();
    expect(JSON.parse(other.body)).toMatchObject({ tenantId: 'user-8' });
    expect(svc.rail.calls).toBe(2);
  });

  it('serves GET /payments/:id through the Lambdalith to its tenant only, and answers unknown routes 404 problem', async () => {
    const svc = await service();
    const payment = JSON.parse(
      (await svc.lambdalith({ path: '/payments', idempotencyKey: newKey(), body: PAYMENT })).body,
    );

    const own = await svc.lambdalith({ method: 'GET', path: `/payments/${payment.paymentId}` });
    const foreign = await svc.lambdalith({
      method: 'GET',
      path: `/payments/${payment.paymentId}`,
      principal: 'user-8',
    });
    const unknown = await svc.lambdalith({ method: 'POST', path: '/transfers', idempotencyKey: newKey(), body: {} });

    expect(own.status).toBe(200);
    expect(JSON.parse(own.body)).toMatchObject({ paymentId: payment.paymentId });
    expect(foreign.status).toBe(404);
    expect(unknown.status).toBe(404);
    expect(unknown.headers['content-type']).toBe('application/problem+json');
  });
});

import { PutItemCommand, UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { createHash } from 'node:crypto';
import { toApiGatewayV2Event } from '../../scripts/local/api-gateway-event.js';
import { checkInvariants, type Invariant } from '../../scripts/soak/invariants.js';
import type { Exchange } from '../../scripts/soak/run-record.js';
import { createPaymentHandler } from '../../src/handlers/factories/create-payment.js';
import { createRefundHandler } from '../../src/handlers/factories/create-refund.js';
import { createOrderEventsConsumer } from '../../src/handlers/factories/order-events-consumer.js';
import { DynamoDBJournal } from '../../src/index.js';
import { createJournalTable, createTable, localClient } from '../support/dynamodb.js';
import { lambdaContext } from '../support/lambda.js';
import { createQueue, EventSourceMapping, localSqsClient } from '../support/sqs.js';
import { localStreamPoller } from '../support/streams.js';
import { outboxDispatcher } from '../../src/outbox/index.js';
import { requestPk, messagePk } from '../../src/entries/journal.js';

type Handler = (event: APIGatewayProxyEventV2, context: Context) => Promise<APIGatewayProxyStructuredResultV2>;

const SKU = 'sku-red-mug';
const INITIAL_STOCK = 100;
const silent = {
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
} as never;

/**
 * A small run of the example service on DynamoDB Local and the SQS emulator, through the real
 * handlers, dispatcher and consumer: two paid orders, one refunded, every event consumed. The
 * tests break one thing in it and expect the matching invariant to catch it.
 */
async function consistentRun() {
  const client = localClient();
  const doc = DynamoDBDocumentClient.from(client);
  const tables = {
    journal: await createJournalTable(client),
    payments: await createTable(client, 'payments', 'paymentId'),
    stock: await createTable(client, 'stock', 'sku'),
  };
  await client.send(
    new PutItemCommand({ TableName: tables.stock, Item: { sku: { S: SKU }, available: { N: String(INITIAL_STOCK) } } }),
  );
  const journal = new DynamoDBJournal({ tableName: tables.journal, client });
  const pay = createPaymentHandler({
    journal,
    paymentsTable: tables.payments,
    guardOptions: { logger: silent },
  }) as unknown as Handler;
  const refund = createRefundHandler({
    journal,
    docClient: doc,
    paymentsTable: tables.payments,
    guardOptions: { logger: silent },
  }) as unknown as Handler;
  const exchanges: Exchange[] = [];
  const orderIdOfKey = new Map<string, string>();
  const post = async (
    route: Exchange['route'],
    path: string,
    routeKey: string,
    key: string,
    body: unknown,
    pathParameters?: Record<string, string>,
  ) => {
    const handler = route === 'create-payment' ? pay : refund;
    const event = toApiGatewayV2Event({
      method: 'POST',
      path,
      routeKey,
      headers: { 'content-type': 'application/json', 'idempotency-key': key },
      body: JSON.stringify(body),
      pathParameters,
    });
    const result = await handler(event, lambdaContext());
    const answer = JSON.parse(result.body ?? '{}') as { paymentId?: string; refundId?: string };
    exchanges.push({
      sentAtMs: 0,
      latencyMs: 1,
      route,
      scenario: 'new-payment',
      key,
      status: result.statusCode ?? 0,
      paymentId: answer.paymentId,
      refundId: answer.refundId,
      phase: 'load',
    });
    return answer;
  };
  for (const n of [1, 2]) {
    orderIdOfKey.set(`key-${n}`, `ord-${n}`);
    await post('create-payment', '/payments', 'POST /payments', `key-${n}`, {
      amount: 1000 * n,
      currency: 'EUR',
      orderId: `ord-${n}`,
      items: [{ sku: SKU, quantity: n }],
    });
  }
  const paymentId = exchanges[0]!.paymentId!;
  await post(
    'create-refund',
    `/payments/${paymentId}/refunds`,
    'POST /payments/{id}/refunds',
    'refund-1',
    { amount: 400 },
    { id: paymentId },
  );

  const sqs = localSqsClient();
  const queue = await createQueue(sqs, { visibilityTimeoutSeconds: 1 });
  const consumer = createOrderEventsConsumer({ journal, stockTable: tables.stock, guardOptions: { logger: silent } });
  const dispatch = outboxDispatcher({ queueUrl: queue.url, client: sqs, journalClient: client, logger: silent });
  const stream = localStreamPoller(tables.journal);
  for (let event = await stream.read(); event.Records.length > 0; event = await stream.read())
    stream.acknowledge(event, (await dispatch(event)) ?? undefined);
  await new EventSourceMapping(sqs, queue, (event) => consumer(event, lambdaContext())).drain(10_000);

  const input = {
    doc,
    tables,
    endpoint: process.env.IDEMKIT_TEST_DYNAMODB_ENDPOINT!,
    exchanges,
    orderIdOfKey,
    initialStock: new Map([[SKU, INITIAL_STOCK]]),
    effectNotCommitted: new Map<string, string>(),
    completionFailures: new Set<string>(),
    unsettledKeys: [] as string[],
    nowEpochMs: Date.now(),
  };
  return { client, doc, tables, exchanges, paymentId, input };
}

const broken = (violations: readonly { invariant: Invariant }[]) => [
  ...new Set(violations.map((violation) => violation.invariant)),
];

describe('the soak invariants, checked against DynamoDB Local', () => {
  it('hold for a consistent run of the example service', async () => {
    const run = await consistentRun();
    const result = await checkInvariants(run.input);
    expect(result.violations).toEqual([]);
    expect(result.checked.get('stock reserved once per order event')).toBe(2);
    expect(result.checked.get('every 2xx carries its payment')).toBe(3);
    // It runs the example service end to end (tables, queue, consumer): more than a unit test's budget.
  }, 120_000);

  it('catch a second payment for a key that was answered 2xx', async () => {
    const run = await consistentRun();
    await run.doc.send(
      new PutCommand({
        TableName: run.tables.payments,
        Item: { paymentId: 'pay_duplicate', orderId: 'ord-2', amount: 2000 },
      }),
    );
    expect(broken((await checkInvariants(run.input)).violations)).toContain('one payment per key that got a 2xx');
  });

  it('catch a 2xx replay that carries another payment id', async () => {
    const run = await consistentRun();
    const replay = { ...run.exchanges[1]!, paymentId: run.paymentId };
    const result = await checkInvariants({ ...run.input, exchanges: [...run.exchanges, replay] });
    expect(broken(result.violations)).toEqual(['every 2xx carries its payment']);
  });

  it('catch a refund over the payment amount', async () => {
    const run = await consistentRun();
    await run.client.send(
      new UpdateItemCommand({
        TableName: run.tables.payments,
        Key: { paymentId: { S: run.paymentId } },
        UpdateExpression: 'SET refundedAmount = :too',
        ExpressionAttributeValues: { ':too': { N: '1001' } },
      }),
    );
    expect(broken((await checkInvariants(run.input)).violations)).toEqual(['refunds never exceed the amount']);
  });

  it('catch stock reserved twice for one order event', async () => {
    const run = await consistentRun();
    await run.client.send(
      new UpdateItemCommand({
        TableName: run.tables.stock,
        Key: { sku: { S: SKU } },
        UpdateExpression: 'SET available = available - :q',
        ExpressionAttributeValues: { ':q': { N: '1' } },
      }),
    );
    const result = await checkInvariants(run.input);
    expect(broken(result.violations)).toEqual(['stock reserved once per order event']);
    expect(result.violations[0]!.detail).toContain(
      `${SKU}: ${INITIAL_STOCK - 4} available, ${INITIAL_STOCK - 3} expected`,
    );
  });

  it('catch a record left IN_PROGRESS past its lease', async () => {
    const run = await consistentRun();
    const pk = requestPk('-', 'POST /payments', 'abandoned');
    await run.doc.send(
      new PutCommand({
        TableName: run.tables.journal,
        Item: {
          pk,
          status: 'IN_PROGRESS',
          leaseUntil: Date.now() - 5_000,
          leaseToken: 't',
          fingerprint: 'f',
          attempt: 1,
        },
      }),
    );
    expect(broken((await checkInvariants(run.input)).violations)).toEqual(['no record IN_PROGRESS past its lease']);
  });

  it('allow a record IN_PROGRESS past its lease only where the guard logged that its completion write failed', async () => {
    const run = await consistentRun();
    const pk = messagePk('order-events', 'event#1');
    await run.doc.send(
      new PutCommand({
        TableName: run.tables.journal,
        Item: {
          pk,
          status: 'IN_PROGRESS',
          leaseUntil: Date.now() - 5_000,
          leaseToken: 't',
          fingerprint: 'f',
          attempt: 1,
        },
      }),
    );
    const logged = `order-events ${createHash('sha256').update('event#1').digest('hex').slice(0, 16)}`;
    const otherAttempt = await checkInvariants({
      ...run.input,
      completionFailures: new Set(['order-events 0000000000000000']),
    });
    const explained = await checkInvariants({ ...run.input, completionFailures: new Set([logged]) });
    expect(broken(otherAttempt.violations)).toEqual(['no record IN_PROGRESS past its lease']);
    expect(explained.violations).toEqual([]);
    expect(explained.abandonedAfterCompletionFailure).toEqual([pk]);
  });

  it('allow an UNKNOWN record only where an effect began and did not commit', async () => {
    const run = await consistentRun();
    const pk = requestPk('-', 'POST /payments', 'killed');
    await run.doc.send(
      new PutCommand({
        TableName: run.tables.journal,
        Item: {
          pk,
          status: 'UNKNOWN',
          leaseUntil: Date.now() - 5_000,
          leaseToken: 't',
          fingerprint: 'f',
          attempt: 1,
          effectStarted: true,
        },
      }),
    );
    const unexplained = await checkInvariants(run.input);
    const explained = await checkInvariants({ ...run.input, effectNotCommitted: new Map([[pk, 'killed']]) });
    expect(broken(unexplained.violations)).toEqual(['UNKNOWN only where an effect began and did not commit']);
    expect(explained.violations).toEqual([]);
    expect(Object.fromEntries(explained.unknownRecords)).toEqual({ killed: 1 });
  });

  it('catch a key that never got a final answer', async () => {
    const run = await consistentRun();
    const result = await checkInvariants({ ...run.input, unsettledKeys: ['key-lost'] });
    expect(result.violations).toEqual([
      { invariant: 'every operation got a final answer', detail: 'key key-lost never got a final answer' },
    ]);
  });
});

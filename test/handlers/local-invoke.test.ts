import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { DynamoDBClient, ScanCommand as RawScanCommand } from '@aws-sdk/client-dynamodb';
import { createStringKeyTable } from '../../scripts/local/tables.js';
import { CreateQueueCommand, ReceiveMessageCommand, SQSClient, type Message } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient, GetCommand, PutCommand, ScanCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { App } from 'aws-cdk-lib';
import { PaymentsServiceStack } from '../../lib/example/payments-service-stack.js';

const run = promisify(execFile);
const ROOT = join(__dirname, '..', '..');
const EVENTS = join(ROOT, 'events');
const STACK = 'LocalInvoke';

/** The events in `events/`, optionally patched (path parameters, keys) for this run. */
function eventFile(name: string, patch?: (event: any) => void): string {
  const event = JSON.parse(readFileSync(join(EVENTS, name), 'utf8'));
  if (!patch) return join(EVENTS, name);
  patch(event);
  const file = join(workDir, `${randomUUID()}.json`);
  writeFileSync(file, JSON.stringify(event));
  return file;
}

let workDir: string;
let template: string;
const suffix = randomUUID().slice(0, 8);
const tables = {
  journal: `journal-${suffix}`,
  payments: `payments-${suffix}`,
  stock: `stock-${suffix}`,
  paymentTotals: `payment-totals-${suffix}`,
};
const dynamo = new DynamoDBClient({ endpoint: process.env.IDEMKIT_TEST_DYNAMODB_ENDPOINT });
const doc = DynamoDBDocumentClient.from(dynamo);
const sqs = new SQSClient({ endpoint: process.env.IDEMKIT_TEST_SQS_ENDPOINT });

/** Runs `scripts/local-invoke.ts` in its own process, as a user would, and returns the handler's result. */
async function invoke(fn: string, event: string, env: Record<string, string> = {}): Promise<any> {
  const resultFile = join(workDir, `${randomUUID()}.result.json`);
  const envArgs = Object.entries({
    IDEMKIT_TABLE_NAME: tables.journal,
    PAYMENTS_TABLE_NAME: tables.payments,
    STOCK_TABLE_NAME: tables.stock,
    PAYMENT_TOTALS_TABLE_NAME: tables.paymentTotals,
    ...env,
  }).flatMap(([name, value]) => ['--env', `${name}=${value}`]);
  await run(
    process.execPath,
    [
      '--import',
      'tsx',
      'scripts/local-invoke.ts',
      fn,
      event,
      '--template',
      template,
      '--result-file',
      resultFile,
      ...envArgs,
    ],
    {
      cwd: ROOT,
      env: {
        ...process.env,
        AWS_ENDPOINT_URL_DYNAMODB: process.env.IDEMKIT_TEST_DYNAMODB_ENDPOINT,
        AWS_ENDPOINT_URL_SQS: process.env.IDEMKIT_TEST_SQS_ENDPOINT,
      },
      timeout: 60_000,
    },
  ).catch((error: { stdout?: string; stderr?: string }) => {
    throw new Error(`local-invoke ${fn} failed:\n${error.stdout ?? ''}\n${error.stderr ?? ''}`);
  });
  const outcome = JSON.parse(readFileSync(resultFile, 'utf8'));
  if (!outcome.ok) throw new Error(`${fn} threw: ${JSON.stringify(outcome.error)}`);
  return outcome.result;
}

async function createTable(name: string, key: string): Promise<void> {
  await createStringKeyTable(dynamo, name, key);
}

async function stock(sku: string): Promise<number> {
  const out = await doc.send(new GetCommand({ TableName: tables.stock, Key: { sku }, ConsistentRead: true }));
  return out.Item?.available as number;
}

/** A DynamoDB Streams INSERT batch made from the outbox items the handlers really wrote. */
async function outboxStreamEvent(): Promise<string> {
  const out = await dynamo.send(
    new RawScanCommand({
      TableName: tables.journal,
      FilterExpression: 'begins_with(pk, :p)',
      ExpressionAttributeValues: { ':p': { S: 'outbox#' } },
    }),
  );
  const Records = (out.Items ?? []).map((item, i) => ({
    eventID: randomUUID(),
    eventName: 'INSERT',
    eventSource: 'aws:dynamodb',
    awsRegion: 'us-east-1',
    dynamodb: { Keys: { pk: item.pk }, NewImage: item, SequenceNumber: String(100 + i), StreamViewType: 'NEW_IMAGE' },
    eventSourceARN: `arn:aws:dynamodb:us-east-1:000000000000:table/${tables.journal}/stream/2025-11-30T00:00:00.000`,
  }));
  const file = join(workDir, `${randomUUID()}.stream.json`);
  writeFileSync(file, JSON.stringify({ Records }));
  return file;
}

/** An SQS event made from messages received from the emulator. */
function sqsEvent(messages: Message[], queueArn: string): string {
  const Records = messages.map((m) => ({
    messageId: m.MessageId,
    receiptHandle: m.ReceiptHandle,
    body: m.Body,
    attributes: {
      ApproximateReceiveCount: '1',
      SentTimestamp: String(Date.now()),
      SenderId: 'local',
      ApproximateFirstReceiveTimestamp: String(Date.now()),
    },
    messageAttributes: Object.fromEntries(
      Object.entries(m.MessageAttributes ?? {}).map(([name, value]) => [
        name,
        { stringValue: value.StringValue, dataType: value.DataType, stringListValues: [], binaryListValues: [] },
      ]),
    ),
    md5OfBody: m.MD5OfBody,
    eventSource: 'aws:sqs',
    eventSourceARN: queueArn,
    awsRegion: 'us-east-1',
  }));
  const file = join(workDir, `${randomUUID()}.sqs.json`);
  writeFileSync(file, JSON.stringify({ Records }));
  return file;
}

const header = (response: any, name: string) =>
  Object.entries(response.headers ?? {}).find(([key]) => key.toLowerCase() === name.toLowerCase())?.[1];

describe('local invoke of the bundled handlers against DynamoDB Local', () => {
  let created: any;

  beforeAll(async () => {
    workDir = mkdtempSync(join(tmpdir(), 'idemkit-local-invoke-'));
    const app = new App({
      outdir: join(workDir, 'cdk.out'),
      context: { 'aws:cdk:enable-asset-metadata': true, 'aws:cdk:enable-path-metadata': true },
    });
    new PaymentsServiceStack(app, STACK);
    app.synth();
    template = join(workDir, 'cdk.out', `${STACK}.template.json`);
    await Promise.all([
      createTable(tables.journal, 'pk'),
      createTable(tables.payments, 'paymentId'),
      createTable(tables.stock, 'sku'),
      createTable(tables.paymentTotals, 'totalId'),
    ]);
    await Promise.all(
      [
        ['sku-red-mug', 10],
        ['sku-blue-mug', 5],
      ].map(([sku, available]) => doc.send(new PutCommand({ TableName: tables.stock, Item: { sku, available } }))),
    );
  }, 240_000);

  afterAll(() => {
    if (workDir) rmSync(workDir, { recursive: true, force: true });
  });

  it("projects the payments table's stream sample into the totals once, however often it is delivered", async () => {
    const first = await invoke('PaymentsReadModel', eventFile('dynamodb-stream-payments.json'));
    const redelivered = await invoke('PaymentsReadModel', eventFile('dynamodb-stream-payments.json'));
    expect([first, redelivered]).toEqual([{ batchItemFailures: [] }, { batchItemFailures: [] }]);
    const totals = await doc.send(
      new GetCommand({ TableName: tables.paymentTotals, Key: { totalId: '-#EUR#2026-11-30' }, ConsistentRead: true }),
    );
    expect(totals.Item).toEqual({ totalId: '-#EUR#2026-11-30', paymentCount: 2, capturedAmount: 4499 });
  });

  it('creates a payment: 201, Location, the row and its outbox event', async () => {
    created = await invoke('Api/CreatePayment', eventFile('apigw-v2-create-payment.json'));
    expect(created.statusCode).toBe(201);
    const payment = JSON.parse(created.body);
    expect(header(created, 'location')).toBe(`/payments/${payment.paymentId}`);
    const row = await doc.send(new GetCommand({ TableName: tables.payments, Key: { paymentId: payment.paymentId } }));
    expect(row.Item).toMatchObject({ amount: 1999, currency: 'EUR', chargeId: payment.chargeId, tenantId: '-' });
    const outbox = await doc.send(
      new ScanCommand({
        TableName: tables.journal,
        FilterExpression: 'begins_with(pk, :p)',
        ExpressionAttributeValues: { ':p': 'outbox#' },
      }),
    );
    expect(outbox.Items).toEqual([
      expect.objectContaining({
        kind: 'outbox',
        type: 'order.confirmed',
        detail: expect.stringContaining(payment.paymentId),
      }),
    ]);
  });

  it('replays the stored answer for the same key and body', async () => {
    const replay = await invoke('Api/CreatePayment', eventFile('apigw-v2-create-payment-replay.json'));
    expect(replay.statusCode).toBe(201);
    expect(replay.body).toBe(created.body);
    expect(header(replay, 'idempotent-replayed')).toBe('true');
    const rows = await doc.send(new ScanCommand({ TableName: tables.payments }));
    expect(rows.Items).toHaveLength(1);
  });

  it('replays it through the bundled Lambdalith too (route ANY /{proxy+}): the same record, no second payment', async () => {
    const moved = await invoke('Lambdalith/Function', eventFile('apigw-v2-lambdalith-create-payment-replay.json'));
    expect(moved.statusCode).toBe(201);
    expect(moved.body).toBe(created.body);
    expect(header(moved, 'idempotent-replayed')).toBe('true');
    const rows = await doc.send(new ScanCommand({ TableName: tables.payments }));
    expect(rows.Items).toHaveLength(1);
  });

  it('refuses the same key with another amount (422)', async () => {
    const mismatch = await invoke('Api/CreatePayment', eventFile('apigw-v2-create-payment-mismatch.json'));
    expect(mismatch.statusCode).toBe(422);
    expect(JSON.parse(mismatch.body).type).toMatch(/idempotency-key-reused$/);
  });

  it('refuses a POST without a key (400)', async () => {
    const missing = await invoke('Api/CreatePayment', eventFile('apigw-v2-create-payment-missing-key.json'));
    expect(missing.statusCode).toBe(400);
    expect(JSON.parse(missing.body).type).toMatch(/idempotency-key-missing$/);
  });

  it('reads the payment back', async () => {
    const { paymentId } = JSON.parse(created.body);
    const got = await invoke(
      'Api/GetPayment',
      eventFile('apigw-v2-get-payment.json', (e) => setPaymentId(e, paymentId)),
    );
    expect(got.statusCode).toBe(200);
    expect(JSON.parse(got.body)).toMatchObject({ paymentId, amount: 1999 });
  });

  it('refunds once, and the uniqueness claim stops a second refund under another key', async () => {
    const { paymentId } = JSON.parse(created.body);
    const first = await invoke(
      'Api/CreateRefund',
      eventFile('apigw-v2-create-refund.json', (e) => setPaymentId(e, paymentId)),
    );
    expect(first.statusCode).toBe(201);
    // Hide the refund from the handler's own pre-check, as a racing request would see it.
    await doc.send(
      new UpdateCommand({ TableName: tables.payments, Key: { paymentId }, UpdateExpression: 'REMOVE refundId' }),
    );
    const second = await invoke(
      'Api/CreateRefund',
      eventFile('apigw-v2-create-refund.json', (e) => {
        setPaymentId(e, paymentId);
        e.headers['idempotency-key'] = randomUUID();
      }),
    );
    expect(second.statusCode).toBe(409);
    expect(JSON.parse(second.body).type).toMatch(/uniqueness-conflict$/);
  });

  it('dispatches real outbox items to the queue, and the consumer reserves stock once', async () => {
    const queueName = `order-events-${suffix}`;
    const { QueueUrl } = await sqs.send(new CreateQueueCommand({ QueueName: queueName }));
    const stream = await outboxStreamEvent();
    const dispatched = await invoke('Outbox/Dispatcher', stream, { IDEMKIT_OUTBOX_QUEUE_URL: QueueUrl! });
    expect(dispatched).toEqual({ batchItemFailures: [] });
    const received = await sqs.send(
      new ReceiveMessageCommand({ QueueUrl, MaxNumberOfMessages: 10, MessageAttributeNames: ['All'] }),
    );
    const confirmed = (received.Messages ?? []).filter((m) => JSON.parse(m.Body!).type === 'order.confirmed');
    expect(confirmed).toHaveLength(1);
    expect(JSON.parse(confirmed[0].Body!)).toMatchObject({
      eventId: expect.any(String),
      detail: { items: [{ sku: 'sku-red-mug', quantity: 2 }] },
    });

    const batch = sqsEvent([confirmed[0], confirmed[0]], `arn:aws:sqs:us-east-1:000000000000:${queueName}`);
    const before = await stock('sku-red-mug');
    expect(await invoke('OrderEvents/Consumer', batch, { IDEMKIT_CONSUMER: `e2e-${suffix}` })).toEqual({
      batchItemFailures: [],
    });
    expect(await invoke('OrderEvents/Consumer', batch, { IDEMKIT_CONSUMER: `e2e-${suffix}` })).toEqual({
      batchItemFailures: [],
    });
    expect(await stock('sku-red-mug')).toBe(before - 2);
  });

  it('sends the sample stream batch to the queue', async () => {
    const { QueueUrl } = await sqs.send(new CreateQueueCommand({ QueueName: `sample-${suffix}` }));
    // The dispatcher starts the TTL of what it sent in the table its stream records name.
    const sampleTable = /:table\/([^/]+)\/stream\//.exec(
      readFileSync(join(EVENTS, 'dynamodb-stream-outbox.json'), 'utf8'),
    )![1];
    await createStringKeyTable(dynamo, sampleTable, 'pk').catch((error) => {
      if (error.name !== 'ResourceInUseException') throw error;
    });
    const result = await invoke('Outbox/Dispatcher', eventFile('dynamodb-stream-outbox.json'), {
      IDEMKIT_OUTBOX_QUEUE_URL: QueueUrl!,
    });
    expect(result).toEqual({ batchItemFailures: [] });
    const received = await sqs.send(
      new ReceiveMessageCommand({ QueueUrl, MaxNumberOfMessages: 10, MessageAttributeNames: ['All'] }),
    );
    expect(received.Messages?.map((m) => m.MessageAttributes?.eventId?.StringValue).sort()).toEqual(
      JSON.parse(readFileSync(join(EVENTS, 'dynamodb-stream-outbox.json'), 'utf8'))
        .Records.map((r: any) => r.dynamodb.NewImage.eventId.S)
        .sort(),
    );
  });

  it.each([
    ['standard', 'sqs-order-events-duplicates.json'],
    ['FIFO', 'sqs-order-events-fifo.json'],
  ])(
    'reserves stock once per event in a %s batch with duplicates, however often it is delivered',
    async (_kind, file) => {
      const env = { IDEMKIT_CONSUMER: `sample-${file}-${suffix}` };
      const [red, blue] = [await stock('sku-red-mug'), await stock('sku-blue-mug')];
      expect(await invoke('OrderEvents/Consumer', eventFile(file), env)).toEqual({ batchItemFailures: [] });
      expect(await invoke('OrderEvents/Consumer', eventFile(file), env)).toEqual({ batchItemFailures: [] });
      expect([await stock('sku-red-mug'), await stock('sku-blue-mug')]).toEqual([red - 2, blue - 1]);
    },
  );
});

function setPaymentId(event: any, paymentId: string): void {
  event.pathParameters.id = paymentId;
  event.rawPath = event.rawPath.replace(/pay_[0-9a-f]+/, paymentId);
  event.requestContext.http.path = event.rawPath;
}

import {
  DynamoDBClient,
  TransactWriteItemsCommand,
  type TransactWriteItemsCommandInput,
} from '@aws-sdk/client-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import middy from '@middy/core';
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { DynamoDBJournal, fingerprintOf, httpIdempotency, idempotencyOf, MetricName } from '../src/index.js';
import { viewHttpEvent } from '../src/http/http-event.js';
import { defaultRequestFingerprint } from '../src/http/request-fingerprint.js';
import { completionTransaction, transactionToken } from '../src/journal/completion-writes.js';
import { toTransactWriteItem } from '../src/journal/item-calls.js';
import { stagedCommitItems } from '../src/journal/staged-commit.js';
import { Telemetry, newTrace } from '../src/telemetry/telemetry.js';
import { recordPayment, paymentResponse } from './fixtures/record-payment.js';
import { TTL_SECONDS } from './harness/contenders.js';
import { lambdaContext, newKey, paymentEvent } from './harness/events.js';
import { floorRecordItem } from './harness/writing-contenders.js';
import { median } from './harness/stats.js';
import { requestPk } from '../src/entries/journal.js';

/**
 * Where the staged-only commit's time over a bare 2-item `TransactWriteItems` goes, step by
 * step, in CPU microseconds per request (`process.cpuUsage` over many repetitions, median of
 * rounds): the fingerprint, the record and its response encoding, marshalling, the client
 * request token, the telemetry, and the SDK's own work on the bigger request (serializing and
 * signing the transaction idemkit sends against the floor's, on a client answering at once).
 * Writes bench/staged-breakdown.json.
 *
 * @example npx tsx bench/staged-breakdown.ts
 */
const here = dirname(fileURLToPath(import.meta.url));
const ROUNDS = 11;

function cannedClient(): DynamoDBClient {
  return new DynamoDBClient({
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    requestHandler: {
      handle: async () => ({
        response: {
          statusCode: 200,
          headers: { 'content-type': 'application/x-amz-json-1.0' },
          body: Readable.from([Buffer.from('{}')]),
        },
      }),
    } as never,
  });
}

async function cpuMicros(step: () => unknown, count: number): Promise<number> {
  const samples: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const started = process.cpuUsage();
    for (let i = 0; i < count; i++) await step();
    const used = process.cpuUsage(started);
    samples.push((used.user + used.system) / count);
  }
  return Number(median(samples).toFixed(2));
}

/** The TransactWriteItems input a staged-only new key sends, captured from a real run. */
async function capturedInput(): Promise<TransactWriteItemsCommandInput> {
  const client = cannedClient();
  let captured: TransactWriteItemsCommandInput | undefined;
  client.middlewareStack.add(
    (next) => async (args) => {
      captured = structuredClone(args.input as TransactWriteItemsCommandInput);
      return next(args);
    },
    { step: 'initialize', name: 'capture' },
  );
  const journal = new DynamoDBJournal({ tableName: 'journal', client });
  const handler = middy(
    recordPayment((item, context) => {
      idempotencyOf(context).stage({ Put: { TableName: 'payments', Item: { ...item } } });
    }),
  ).use(httpIdempotency({ journal, ttlSeconds: TTL_SECONDS, effects: 'staged-only' }));
  await handler(paymentEvent(newKey()), lambdaContext());
  return captured!;
}

function floorInput(): TransactWriteItemsCommandInput {
  const { id, answer } = paymentResponse({ amount: 4_999, currency: 'EUR' });
  const now = Date.now();
  const record = floorRecordItem(newKey(), answer, now);
  const payment = {
    pk: `pay#${id}`,
    idempotencyKey: 'k',
    amount: 4_999,
    currency: 'EUR',
    status: 'succeeded',
    createdAt: now,
  };
  return {
    TransactItems: [
      { Put: { TableName: 'journal', Item: marshall(record), ConditionExpression: 'attribute_not_exists(pk)' } },
      { Put: { TableName: 'payments', Item: marshall(payment) } },
    ],
  };
}

const idemkitInput = await capturedInput();
const floor = floorInput();
const client = cannedClient();
const event = paymentEvent(newKey());
const view = viewHttpEvent(event);
const { answer } = paymentResponse({ amount: 4_999, currency: 'EUR' });
const now = Date.now();
const staged = [
  { Put: { TableName: 'payments', Item: { pk: 'pay#1', idempotencyKey: 'k', amount: 4_999, currency: 'EUR' } } },
];
const commit = {
  pk: requestPk('tenant-1', 'POST /payments', newKey()),
  fingerprint: 'f'.repeat(64),
  commitToken: randomUUID(),
  createdAtEpochMs: now,
  ttlSeconds: TTL_SECONDS,
  response: answer,
  writes: { staged, uniqueClaims: [], outbox: [] },
};
const telemetry = new Telemetry('Operation', {});
const identity = {
  requestId: 'r',
  traceId: 't',
  tenant: 'tenant-1',
  operation: 'POST /payments',
  key: 'k',
  requestHash: 'f'.repeat(64),
  responseCode: 201,
};

const steps = {
  'fingerprint (default request fingerprint + SHA-256 of its canonical JSON)': () =>
    fingerprintOf(defaultRequestFingerprint(view)),
  'record and response encoding (stagedCommitItems)': () => stagedCommitItems(commit, now),
  'marshalling the transaction items (record + staged Put)': () => {
    const { record } = stagedCommitItems(commit, now);
    return completionTransaction({
      tableName: 'journal',
      recordWrite: { Put: { TableName: 'journal', Item: record } },
      pk: commit.pk,
      writes: commit.writes,
      nowEpochMs: now,
    }).map(toTransactWriteItem);
  },
  'client request token (SHA-256)': () => transactionToken(commit.pk, commit.commitToken),
  'telemetry: log line and one metric built (not printed)': () => {
    const trace = newTrace();
    trace.status = 'new';
    trace.metrics.push(MetricName.newRequest);
    telemetry.emit(identity, trace, now, now + 3);
  },
  "SDK: send idemkit's transaction (serialize, sign, parse the answer)": () =>
    client.send(new TransactWriteItemsCommand(structuredClone(idemkitInput))),
  "SDK: send the floor's transaction": () => client.send(new TransactWriteItemsCommand(structuredClone(floor))),
  'structuredClone of an input (subtract from both sends)': () => structuredClone(floor),
};

const results: Record<string, number> = {};
for (const [name, step] of Object.entries(steps)) {
  results[name] = await cpuMicros(step, name.startsWith('SDK') ? 400 : 4000);
  process.stderr.write(`${String(results[name]).padStart(8)} µs  ${name}\n`);
}
const bytes = {
  idemkit: Buffer.byteLength(JSON.stringify(idemkitInput)),
  floor: Buffer.byteLength(JSON.stringify(floor)),
};
process.stderr.write(`input JSON bytes: idemkit ${bytes.idemkit}, floor ${bytes.floor}\n`);
writeFileSync(
  join(here, 'staged-breakdown.json'),
  `${JSON.stringify({ measuredAt: new Date().toISOString(), node: process.version, rounds: ROUNDS, microsPerRequest: results, inputJsonBytes: bytes, idemkitInput, floorInput: floor }, null, 2)}\n`,
);

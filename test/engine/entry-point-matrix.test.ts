/**
 * The situations every entry point shares, run through all of them on DynamoDB Local: the HTTP
 * middleware, the function wrapper, the queue consumer and the two stream consumers meet one
 * engine, so each situation must end the same way in each (in each one's own terms: a problem
 * answer, a typed error, a batch item failure).
 */
import middy from '@middy/core';
import type { SQSEvent } from 'aws-lambda';
import {
  DynamoDBJournal,
  dynamodbStreamConsumer,
  httpIdempotency,
  idempotencyOf,
  IdempotencyError,
  kinesisConsumer,
  makeIdempotent,
  sqsConsumer,
} from '../../src/index.js';
import { createJournalTable, localClient } from '../support/dynamodb.js';
import { kinesisRecord } from '../support/kinesis.js';
import { httpEvent, lambdaContext } from '../support/lambda.js';

/** What an attempt answered, in terms all three entry points share. */
type Answer =
  { readonly ok: true; readonly replayed: boolean } | { readonly ok: false; readonly code: string | undefined };

/** How the guarded handler behaves on its next run. */
interface Behaviour {
  runs: number;
  /** Called as the handler starts: the attempt's record is in the journal by then. */
  running?: () => void;
  /** Awaited inside the handler before it returns. */
  gate?: Promise<void>;
  /** The handler throws this instead of returning. */
  fail?: Error;
  /** Called inside the handler with its scope, before it returns. */
  during?: (scope: ReturnType<typeof idempotencyOf>) => Promise<void>;
}

interface Driver {
  readonly name: string;
  send(key: string | undefined, payload: { amount: number }): Promise<Answer>;
}

const client = localClient();
let nowEpochMs = Date.now();
const clock = () => nowEpochMs;

async function guardedRun(behaviour: Behaviour, context: object): Promise<{ amount: number; run: number }> {
  behaviour.runs++;
  const run = behaviour.runs;
  behaviour.running?.();
  await behaviour.gate;
  await behaviour.during?.(idempotencyOf(context));
  if (behaviour.fail) throw behaviour.fail;
  return { amount: 1, run };
}

function drivers(journal: DynamoDBJournal, behaviour: Behaviour): Driver[] {
  const shared = { journal, clock, leaseMs: 1_000 };
  const http = middy(async (_event: unknown, context: object) => ({
    statusCode: 201,
    body: JSON.stringify(await guardedRun(behaviour, context)),
  })).use(httpIdempotency({ ...shared, operation: 'pay' }));
  const fn = makeIdempotent(async (_input: { key?: string }, context: object) => guardedRun(behaviour, context), {
    ...shared,
    operation: 'pay',
    key: (input) => input.key,
  });
  const failures: Record<string, unknown>[] = [];
  const consumerOptions = {
    ...shared,
    consumer: 'payments',
    logger: {
      info: (_m: unknown, ...fields: unknown[]) => void failures.push(fields[0] as Record<string, unknown>),
      error: (_m: unknown, ...fields: unknown[]) => void failures.push(fields[0] as Record<string, unknown>),
    },
  };
  const runRecord = async (_record: unknown, context: object) => {
    await guardedRun(behaviour, context);
  };
  const consumer = sqsConsumer(runRecord, { ...consumerOptions, messageId: (record) => JSON.parse(record.body).key });
  const kinesis = kinesisConsumer<{ key: string }>(runRecord, {
    ...consumerOptions,
    messageId: (record) => record.data.key,
  });
  const dynamodb = dynamodbStreamConsumer<{ key: string }>(runRecord, {
    ...consumerOptions,
    messageId: (record) => record.newImage?.key as string,
  });
  /** A batch answer in the matrix's terms: the one record's failure code, or whether the handler ran. */
  const answerOf = async (batch: () => Promise<{ batchItemFailures: unknown[] }>): Promise<Answer> => {
    const runsBefore = behaviour.runs;
    failures.length = 0;
    const result = await batch();
    if (result.batchItemFailures.length === 0) return { ok: true, replayed: behaviour.runs === runsBefore };
    return { ok: false, code: failures[0]?.error_code as string | undefined };
  };
  return [
    {
      name: 'httpIdempotency',
      async send(key, payload) {
        let response: { statusCode: number; body: string; headers?: Record<string, string> };
        try {
          response = (await http(httpEvent({ key, body: payload }) as never, lambdaContext())) as typeof response;
        } catch (error) {
          // No error-handler middleware here: the handler's own error reaches the caller (Lambda answers 502).
          return { ok: false, code: error instanceof IdempotencyError ? error.code : undefined };
        }
        if (response.statusCode < 300)
          return { ok: true, replayed: response.headers?.['Idempotent-Replayed'] === 'true' };
        return { ok: false, code: String(JSON.parse(response.body).type).replace('urn:idemkit:problem:', '') };
      },
    },
    {
      name: 'makeIdempotent',
      async send(key, payload) {
        const runsBefore = behaviour.runs;
        try {
          await fn({ key, ...payload }, lambdaContext());
          return { ok: true, replayed: behaviour.runs === runsBefore };
        } catch (error) {
          return { ok: false, code: error instanceof IdempotencyError ? error.code : undefined };
        }
      },
    },
    {
      name: 'sqsConsumer',
      send(key, payload) {
        const event = {
          Records: [{ messageId: `m-${Math.random()}`, body: JSON.stringify({ key, ...payload }), attributes: {} }],
        } as unknown as SQSEvent;
        return answerOf(() => consumer(event, lambdaContext()));
      },
    },
    {
      name: 'kinesisConsumer',
      send(key, payload) {
        // Every delivery is a new record (as a producer's retry is): only the key in the data makes it the same message.
        return answerOf(() => kinesis({ Records: [kinesisRecord({ key, ...payload })] }, lambdaContext()));
      },
    },
    {
      name: 'dynamodbStreamConsumer',
      send(key, payload) {
        const newImage = { ...(key === undefined ? {} : { key: { S: key } }), amount: { N: String(payload.amount) } };
        const record = {
          eventID: `e-${Math.random().toString(36).slice(2)}`,
          eventName: 'INSERT' as const,
          eventSource: 'aws:dynamodb',
          dynamodb: { Keys: { pk: { S: 'p' } }, NewImage: newImage, SequenceNumber: String(Date.now()) },
        };
        return answerOf(() => dynamodb({ Records: [record] }, lambdaContext()));
      },
    },
  ];
}

const ENTRY_POINTS = ['httpIdempotency', 'makeIdempotent', 'sqsConsumer', 'kinesisConsumer', 'dynamodbStreamConsumer'];
const CONSUMERS = new Set(['sqsConsumer', 'kinesisConsumer', 'dynamodbStreamConsumer']);

describe.each(ENTRY_POINTS)('%s on DynamoDB Local', (name) => {
  let journal: DynamoDBJournal;
  let behaviour: Behaviour;
  let driver: Driver;
  let key: string;

  beforeAll(async () => {
    journal = new DynamoDBJournal({ tableName: await createJournalTable(client, 'matrix'), client, clock });
  });

  beforeEach(() => {
    nowEpochMs = Date.now();
    behaviour = { runs: 0 };
    driver = drivers(journal, behaviour).find((d) => d.name === name)!;
    key = `k-${Math.random().toString(36).slice(2)}`;
  });

  it('runs a new key once and answers a repeat from the record', async () => {
    const first = await driver.send(key, { amount: 5 });
    const second = await driver.send(key, { amount: 5 });

    expect(first).toEqual({ ok: true, replayed: false });
    expect(second).toEqual({ ok: true, replayed: true });
    expect(behaviour.runs).toBe(1);
  });

  it('refuses the key reused with another payload, without running', async () => {
    await driver.send(key, { amount: 5 });
    const reused = await driver.send(key, { amount: 6 });

    expect(reused).toEqual({ ok: false, code: 'idempotency-key-reused' });
    expect(behaviour.runs).toBe(1);
  });

  it('refuses a missing key without running', async () => {
    expect(await driver.send(undefined, { amount: 5 })).toEqual({ ok: false, code: 'idempotency-key-missing' });
    expect(behaviour.runs).toBe(0);
  });

  it('refuses an invalid key without running', async () => {
    expect(await driver.send('two words', { amount: 5 })).toEqual({ ok: false, code: 'idempotency-key-invalid' });
    expect(behaviour.runs).toBe(0);
  });

  it('answers a duplicate that arrives while the first attempt holds its lease as in progress', async () => {
    let open!: () => void;
    behaviour.gate = new Promise((resolve) => (open = resolve));
    const running = new Promise<void>((resolve) => (behaviour.running = resolve));
    const first = driver.send(key, { amount: 5 });
    await running;
    const duplicate = await driver.send(key, { amount: 5 });
    open();

    expect(duplicate).toEqual({ ok: false, code: 'request-in-progress' });
    expect(await first).toEqual({ ok: true, replayed: false });
    expect(behaviour.runs).toBe(1);
  });

  it('releases the record when the handler fails, so a retry runs again', async () => {
    behaviour.fail = new Error('downstream refused');
    const failed = await driver.send(key, { amount: 5 });
    behaviour.fail = undefined;
    const retried = await driver.send(key, { amount: 5 });

    expect(failed.ok).toBe(false);
    expect(retried).toEqual({ ok: true, replayed: false });
    expect(behaviour.runs).toBe(2);
  });

  it('answers an attempt whose lease was taken over with the outcome of the attempt that took it', async () => {
    let open!: () => void;
    behaviour.gate = new Promise((resolve) => (open = resolve));
    // The stalled attempt wakes after its lease was taken over: its fenced write is refused.
    behaviour.during = async (scope) => {
      if (scope.attempt === 1) await scope.beginEffect('charge');
    };
    const running = new Promise<void>((resolve) => (behaviour.running = resolve));
    const stalled = driver.send(key, { amount: 5 });
    await running;
    nowEpochMs += 5_000;
    behaviour.gate = undefined;
    const takeover = await driver.send(key, { amount: 5 });
    open();

    expect(takeover).toEqual({ ok: true, replayed: false });
    expect(await stalled).toEqual({ ok: true, replayed: name === 'httpIdempotency' });
    expect(behaviour.runs).toBe(2);
    expect((await journal.get(takeoverPk(name, key)))?.attempt).toBe(2);
  });
});

function takeoverPk(name: string, key: string): string {
  return CONSUMERS.has(name) ? `msg#payments#${key}` : `req#-#pay#${key}`;
}

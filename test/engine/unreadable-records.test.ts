/**
 * Records the guard cannot read — a status it does not know or none, an attribute of the wrong
 * type, a stored response that does not decode — are refused, never acted on: the handler does
 * not run, the record is left as it is, and the attempt is counted as a journal error. Each is
 * written straight into DynamoDB Local, as a typo, a newer version or a broken table would.
 */
import middy from '@middy/core';
import { PutItemCommand, GetItemCommand } from '@aws-sdk/client-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { gzipSync } from 'node:zlib';
import type { SQSEvent } from 'aws-lambda';
import {
  DynamoDBJournal,
  fingerprintOf,
  httpIdempotency,
  makeIdempotent,
  MetricName,
  RecordUnreadableError,
  sqsConsumer,
  type HttpResponse,
} from '../../src/index.js';
import { defaultRequestFingerprint } from '../../src/http/request-fingerprint.js';
import { viewHttpEvent } from '../../src/http/http-event.js';
import { sha256Hex } from '../../src/core/index.js';
import { createJournalTable, localClient } from '../support/dynamodb.js';
import { httpEvent, lambdaContext } from '../support/lambda.js';
import { metricCounter } from '../sqs/consumer-fixtures.js';
import { requestPk, messagePk } from '../../src/entries/journal.js';

const client = localClient();
const body = { amount: 1250, currency: 'EUR' };
const past = Date.now() - 60_000;

/** A record item as a reservation writes it, with `changes` applied (an attribute set to undefined is removed). */
function recordItem(pk: string, fingerprint: string, changes: Record<string, unknown>): Record<string, unknown> {
  const item: Record<string, unknown> = {
    pk,
    kind: 'request',
    status: 'IN_PROGRESS',
    fingerprint,
    leaseToken: 'token-of-a-vanished-attempt',
    leaseUntil: past,
    attempt: 1,
    createdAt: past,
    updatedAt: past,
    expiresAt: Math.floor(Date.now() / 1000) + 3600,
    evidence: {},
    effectStarted: false,
    ...changes,
  };
  for (const [name, value] of Object.entries(item)) if (value === undefined) delete item[name];
  return item;
}

async function put(tableName: string, item: Record<string, unknown>): Promise<void> {
  await client.send(new PutItemCommand({ TableName: tableName, Item: marshall(item) }));
}

async function read(tableName: string, pk: string) {
  return (await client.send(new GetItemCommand({ TableName: tableName, Key: marshall({ pk }) }))).Item;
}

/** How each unreadable record is made, and what the answer names. */
const unreadable: ReadonlyArray<[string, Record<string, unknown>, RegExp]> = [
  ['a status the guard does not know', { status: 'DONE' }, /status "DONE" is not one the guard knows/],
  ['a status written by a newer version', { status: 'PAUSED' }, /status "PAUSED"/],
  ['no status at all', { status: undefined }, /it has no status/],
  ['a lease end of the wrong type', { leaseUntil: 'soon' }, /'leaseUntil' is not a number/],
  [
    'a completed record whose gzip response is not gzip',
    { status: 'COMPLETED', responseEncoding: 'gzip', response: Buffer.from('not gzip at all') },
    /does not decode/,
  ],
  [
    'a completed record whose JSON response is truncated',
    { status: 'COMPLETED', responseEncoding: 'json', response: '{"value":{"statusCode":20' },
    /does not decode/,
  ],
  ['a completed record without a response', { status: 'COMPLETED' }, /completed without a stored response/],
];

describe('a record the guard cannot read', () => {
  let tableName: string;
  let journal: DynamoDBJournal;
  let metrics: ReturnType<typeof metricCounter>;

  beforeAll(async () => {
    tableName = await createJournalTable(client);
    journal = new DynamoDBJournal({ tableName, client });
  });
  beforeEach(() => {
    metrics = metricCounter();
  });
  afterEach(() => metrics.restore());

  describe.each(unreadable)('with %s', (situation, changes, reason) => {
    const slug = situation.replace(/\W+/g, '-');

    it('answers 500 record-unreadable over HTTP, runs nothing and leaves the record as it is', async () => {
      let runs = 0;
      const guarded = middy(async () => {
        runs++;
        return { statusCode: 201, body: '{}' };
      }).use(httpIdempotency({ journal }));
      const event = httpEvent({ key: `http-${slug}`, body });
      const pk = requestPk('-', 'POST /payments', `http-${slug}`);
      await put(tableName, recordItem(pk, fingerprintOf(defaultRequestFingerprint(viewHttpEvent(event))), changes));
      const before = await read(tableName, pk);

      const answer = (await guarded(event, lambdaContext())) as Required<HttpResponse>;

      expect(answer).toMatchObject({ statusCode: 500, headers: { 'content-type': 'application/problem+json' } });
      expect(answer.headers['retry-after']).toBeUndefined();
      const problem = JSON.parse(answer.body);
      expect(problem.type).toBe('urn:idemkit:problem:record-unreadable');
      // The reason goes to the log line; the caller learns neither it nor the record's key.
      expect(answer.body).not.toContain(pk);
      expect(runs).toBe(0);
      expect(await read(tableName, pk)).toEqual(before);
      expect(metrics.count(MetricName.journalError)).toBe(1);
    });

    it('rejects makeIdempotent with RecordUnreadableError before the function runs', async () => {
      let runs = 0;
      const guarded = makeIdempotent(
        async (input: { id: string }) => {
          runs++;
          return input.id;
        },
        { journal, operation: 'reserve', key: (input) => input.id },
      );
      const input = { id: `fn-${slug}` };
      const pk = requestPk('-', 'reserve', input.id);
      await put(tableName, recordItem(pk, fingerprintOf(input), changes));
      const before = await read(tableName, pk);

      const error = await guarded(input).catch((e: unknown) => e);

      expect(error).toBeInstanceOf(RecordUnreadableError);
      expect((error as Error).message).toMatch(reason);
      expect(runs).toBe(0);
      expect(await read(tableName, pk)).toEqual(before);
    });

    it('reports the message failed in sqsConsumer and handles nothing', async () => {
      let runs = 0;
      const consume = sqsConsumer(
        async () => {
          runs++;
        },
        { journal, consumer: 'orders' },
      );
      const messageId = `sqs-${slug}`;
      const pk = messagePk('orders', messageId);
      await put(tableName, { ...recordItem(pk, sha256Hex('{"n":1}'), changes), kind: 'message' });
      const event = { Records: [{ messageId, body: '{"n":1}', attributes: {} }] } as unknown as SQSEvent;

      const answer = await consume(event, lambdaContext());

      expect(answer.batchItemFailures).toEqual([{ itemIdentifier: messageId }]);
      expect(runs).toBe(0);
      expect(await read(tableName, pk)).toBeDefined();
    });
  });

  it('refuses a completed HTTP record whose stored response has no status code, instead of replaying it', async () => {
    let runs = 0;
    const guarded = middy(async () => {
      runs++;
      return { statusCode: 201, body: '{}' };
    }).use(httpIdempotency({ journal }));
    const event = httpEvent({ key: 'http-no-status', body });
    const pk = requestPk('-', 'POST /payments', 'http-no-status');
    const stored = JSON.stringify({ value: { headers: { 'content-type': 'application/json' }, body: '{}' } });
    await put(
      tableName,
      recordItem(pk, fingerprintOf(defaultRequestFingerprint(viewHttpEvent(event))), {
        status: 'COMPLETED',
        responseEncoding: 'gzip',
        response: gzipSync(stored),
      }),
    );

    const answer = (await guarded(event, lambdaContext())) as Required<HttpResponse>;

    expect(answer.statusCode).toBe(500);
    expect(JSON.parse(answer.body)).toMatchObject({
      type: 'urn:idemkit:problem:record-unreadable',
      instance: expect.any(String),
    });
    expect(runs).toBe(0);
    expect(metrics.count(MetricName.replay)).toBe(0);
    expect(metrics.count(MetricName.journalError)).toBe(1);
  });

  it('never overwrites an expired record whose status it does not know', async () => {
    const input = { id: 'fn-expired-unknown-status' };
    const pk = requestPk('-', 'reserve', input.id);
    await put(tableName, recordItem(pk, fingerprintOf(input), { status: 'ARCHIVED', expiresAt: 1 }));
    const guarded = makeIdempotent(async (_input: { id: string }) => 'ran', {
      journal,
      operation: 'reserve',
      key: (i) => i.id,
    });

    await expect(guarded(input)).rejects.toBeInstanceOf(RecordUnreadableError);
    expect((await read(tableName, pk))?.status).toEqual({ S: 'ARCHIVED' });
  });
});

/**
 * Expiry is read first, and it is read the same way by every shape of reservation: the claim
 * condition decides an expired record the guard cannot read (`claimable` holds for a completed
 * record past its expiry, whatever its response holds; never for a status the guard does not
 * know), so put-first, read-first and staged-only all give the same answer for it.
 */
describe('an expired record the guard cannot read, under every shape of reservation', () => {
  const shapes: ReadonlyArray<[string, (tableName: string) => Parameters<typeof httpIdempotency>[0]]> = [
    ['put-first', (tableName) => ({ journal: new DynamoDBJournal({ tableName, client }) })],
    ['read-first', (tableName) => ({ journal: new DynamoDBJournal({ tableName, client, reservation: 'read-first' }) })],
    ['staged-only', (tableName) => ({ journal: new DynamoDBJournal({ tableName, client }), effects: 'staged-only' })],
  ];
  let tableName: string;
  beforeAll(async () => {
    tableName = await createJournalTable(client);
  });

  it.each(unreadable)('answers the same in every shape with %s', async (situation, changes) => {
    const slug = situation.replace(/\W+/g, '-');
    const answers: Array<{ status: number; type?: string; runs: number; overwritten: boolean }> = [];
    for (const [shape, options] of shapes) {
      let runs = 0;
      const guarded = middy(async () => {
        runs++;
        return { statusCode: 201, body: '{"ran":true}' };
      }).use(httpIdempotency(options(tableName)));
      const event = httpEvent({ key: `expired-${slug}-${shape}`, body });
      const pk = requestPk('-', 'POST /payments', `expired-${slug}-${shape}`);
      const fingerprint = fingerprintOf(defaultRequestFingerprint(viewHttpEvent(event)));
      await put(tableName, recordItem(pk, fingerprint, { ...changes, expiresAt: Math.floor(Date.now() / 1000) - 60 }));
      const before = await read(tableName, pk);

      const answer = (await guarded(event, lambdaContext())) as Required<HttpResponse>;

      const type = answer.statusCode >= 400 ? JSON.parse(answer.body).type : undefined;
      const overwritten = JSON.stringify(await read(tableName, pk)) !== JSON.stringify(before);
      answers.push({ status: answer.statusCode, type, runs, overwritten });
    }

    expect(answers[1]).toEqual(answers[0]);
    // A staged-only handler runs before its commit (its writes commit only with the record), so only the answer and
    // the record are compared for it.
    expect({ ...answers[2], runs: undefined }).toEqual({ ...answers[0], runs: undefined });
    // Either the key is new again (the handler ran and its outcome replaced the record) or nothing happened.
    expect([
      { status: 201, type: undefined, runs: 1, overwritten: true },
      { status: 500, type: 'urn:idemkit:problem:record-unreadable', runs: 0, overwritten: false },
    ]).toContainEqual(answers[0]);
  });
});

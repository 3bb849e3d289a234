import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { DynamoDBJournal, LeaseLostError, RecordStatus, idempotencyOf, makeIdempotent } from '../../src/index.js';
import { createJournalTable, createTable, localClient } from '../support/dynamodb.js';
import { httpEvent } from '../support/lambda.js';
import { guard } from '../http/guarded-handler.js';
import { requestPk } from '../../src/entries/journal.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('fenced leases on DynamoDB Local', () => {
  const client = localClient();
  const doc = DynamoDBDocumentClient.from(client);
  let journal: DynamoDBJournal;
  let counters: string;
  beforeAll(async () => {
    journal = new DynamoDBJournal({ tableName: await createJournalTable(client), client });
    counters = await createTable(client, 'counters');
  });
  const counter = async (pk: string) =>
    (await doc.send(new GetCommand({ TableName: counters, Key: { pk }, ConsistentRead: true }))).Item?.count;

  it('refuses a stalled attempt after a takeover: the stored outcome is the new owner’s and the staged write lands once', async () => {
    const gates: Array<() => void> = [];
    const derived: string[] = [];
    const charge = makeIdempotent(
      async (input: { id: string; who: string }, context) => {
        derived.push(idempotencyOf(context).deriveKey('charge'));
        idempotencyOf(context).stage({
          Update: {
            TableName: counters,
            Key: { pk: input.id },
            UpdateExpression: 'ADD #c :one',
            ExpressionAttributeNames: { '#c': 'count' },
            ExpressionAttributeValues: { ':one': 1 },
          },
        });
        if (input.who === 'A') await new Promise<void>((resolve) => gates.push(resolve));
        return { chargedBy: input.who };
      },
      { journal, operation: 'charge', key: (input) => input.id, fingerprint: (input) => input.id, leaseMs: 300 },
    );
    const a = charge({ id: 'stall-1', who: 'A' });
    await sleep(450);
    const b = await charge({ id: 'stall-1', who: 'B' });
    gates[0]();
    expect(b).toEqual({ chargedBy: 'B' });
    expect(await a).toEqual({ chargedBy: 'B' });
    expect(await counter('stall-1')).toBe(1);
    expect(derived[1]).toBe(derived[0]); // a takeover keeps the downstream key
    const record = await journal.get(requestPk('-', 'charge', 'stall-1'));
    expect(record).toMatchObject({
      status: RecordStatus.completed,
      attempt: 2,
      response: { value: { chargedBy: 'B' } },
    });
  });

  it('keeps a long handler’s lease alive past leaseMs with heartbeat', async () => {
    let runs = 0;
    const slow = makeIdempotent(
      async (_input: { id: string }, context) => {
        runs++;
        for (let i = 0; i < 8; i++) {
          await sleep(150);
          await idempotencyOf(context).heartbeat();
        }
        return 'done';
      },
      { journal, operation: 'slow', key: (input) => input.id, leaseMs: 700 },
    );
    const first = slow({ id: 'hb-1' });
    await sleep(1_000); // past leaseMs: only the heartbeats keep the lease
    await expect(slow({ id: 'hb-1' })).rejects.toMatchObject({ code: 'request-in-progress' });
    expect(await first).toBe('done');
    expect(runs).toBe(1);
  });

  it('marks the record UNKNOWN when the handler fails after beginEffect, and answers 409 needs-review', async () => {
    const handler = makeIdempotent(
      async (_input: { id: string }, context) => {
        await idempotencyOf(context).beginEffect('charge');
        throw new Error('rail timed out');
      },
      { journal, operation: 'effect-fail', key: (input) => input.id },
    );
    await expect(handler({ id: 'ef-1' })).rejects.toThrow('rail timed out');
    expect((await journal.get(requestPk('-', 'effect-fail', 'ef-1')))?.status).toBe(RecordStatus.unknown);
    await expect(handler({ id: 'ef-1' })).rejects.toMatchObject({ code: 'needs-review' });
  });

  it('marks the record UNKNOWN when an HTTP handler answers 5xx after beginEffect', async () => {
    let runs = 0;
    const handler = guard(async (_event: unknown, context?: unknown) => {
      runs++;
      await idempotencyOf(context as object).beginEffect('charge');
      return { statusCode: 502, body: 'rail answered garbage' };
    }, journal);
    expect((await handler(httpEvent({ key: 'ef-http', body: {} }))).statusCode).toBe(502);
    const retry = await handler(httpEvent({ key: 'ef-http', body: {} }));
    expect(retry.statusCode).toBe(409);
    expect(JSON.parse(retry.body).type).toBe('urn:idemkit:problem:needs-review');
    expect(runs).toBe(1);
  });

  it('lets the attempt that began the effect still complete the UNKNOWN record it holds', async () => {
    const reservation = await journal.reserve({ pk: 'req#-#late#1', fingerprint: 'f', leaseMs: 1000, ttlSeconds: 60 });
    if (!reservation.reserved) throw new Error('expected a reservation');
    const token = reservation.record.leaseToken;
    await journal.beginEffect('req#-#late#1', token, 'charge');
    await journal.markUnknown('req#-#late#1', token);
    await journal.complete({ pk: 'req#-#late#1', leaseToken: token, response: 'finished late', ttlSeconds: 60 });
    expect((await journal.get('req#-#late#1'))?.status).toBe(RecordStatus.completed);
    await expect(
      journal.complete({ pk: 'req#-#late#1', leaseToken: 'other', response: 'x', ttlSeconds: 60 }),
    ).rejects.toBeInstanceOf(LeaseLostError);
  });

  it('derives one key per label, and new ones when an expired key is reused', async () => {
    const clock = { now: Date.now() };
    const clocked = new DynamoDBJournal({ tableName: journal.tableName, client, clock: () => clock.now });
    const seen: string[][] = [];
    const fn = makeIdempotent(
      async (input: { id: string; fail: boolean }, context) => {
        const scope = idempotencyOf(context);
        seen.push([scope.deriveKey('charge'), scope.deriveKey('email')]);
        if (input.fail) throw new Error('retry me');
        return 'ok';
      },
      {
        journal: clocked,
        operation: 'derive',
        key: (input) => input.id,
        fingerprint: (input) => input.id,
        ttlSeconds: 60,
        clock: () => clock.now,
      },
    );
    await expect(fn({ id: 'd-1', fail: true })).rejects.toThrow();
    await fn({ id: 'd-1', fail: false });
    clock.now += 61_000;
    await fn({ id: 'd-1', fail: false });
    expect(seen[0][0]).not.toBe(seen[0][1]);
    expect(seen[2][0]).not.toBe(seen[1][0]);
  });

  it('answers an HTTP retry in progress with 409 when the first attempt holds the lease', async () => {
    let resolveFirst: () => void = () => undefined;
    const handler = guard(async () => {
      await new Promise<void>((resolve) => (resolveFirst = resolve));
      return { statusCode: 201, body: 'ok' };
    }, journal);
    const first = handler(httpEvent({ key: 'lease-409', body: {} }), 5_000);
    await sleep(100);
    expect((await handler(httpEvent({ key: 'lease-409', body: {} }), 5_000)).statusCode).toBe(409);
    resolveFirst();
    expect((await first).statusCode).toBe(201);
  });
});

describe('a handler whose own fenced write is refused', () => {
  it('answers with the stored outcome of the attempt that took over, never its own', async () => {
    const client = localClient();
    const journal = new DynamoDBJournal({ tableName: await createJournalTable(client), client });
    let stalled = true;
    const handler = guard(
      async (_event: unknown, context?: unknown) => {
        const scope = idempotencyOf(context as object);
        if (stalled) {
          stalled = false;
          await sleep(400);
          await scope.recordEvidence({ chargeId: 'ch_stale' });
          return { statusCode: 201, body: 'stale' };
        }
        return { statusCode: 201, body: 'fresh' };
      },
      journal,
      { leaseMs: 250 },
    );
    const stale = handler(httpEvent({ key: 'refused-write', body: {} }));
    await sleep(300);
    expect((await handler(httpEvent({ key: 'refused-write', body: {} }))).body).toBe('fresh');
    expect(await stale).toMatchObject({ statusCode: 201, body: 'fresh', headers: { 'Idempotent-Replayed': 'true' } });
  });
});

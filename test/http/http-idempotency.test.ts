import { Metrics } from '@aws-lambda-powertools/metrics';
import { DynamoDBJournal, MetricName } from '../../src/index.js';
import { countCalls, createJournalTable, dynamoJournal, localClient, nextCallAnswered } from '../support/dynamodb.js';
import { httpEvent } from '../support/lambda.js';
import { countingHandler, guard } from './guarded-handler.js';

const body = { amount: 1250, currency: 'EUR', orderId: 'ord_1' };

describe('httpIdempotency on DynamoDB Local', () => {
  it('runs the handler once for 50 concurrent callers with one key, in each of 20 trials', async () => {
    const { journal } = await dynamoJournal();
    for (let trial = 0; trial < 20; trial++) {
      const { calls, handler } = countingHandler();
      const key = `concurrent-${trial}`;
      // A separate middleware instance per caller, as separate containers would have.
      const answers = await Promise.all(
        Array.from({ length: 50 }, () => guard(handler, journal)(httpEvent({ key, body }))),
      );
      expect(calls).toHaveLength(1);
      for (const answer of answers) {
        if (answer.statusCode === 409) expect(answer.headers['retry-after']).toBe('1');
        else expect(answer).toMatchObject({ statusCode: 201, body: JSON.stringify({ id: 'pay_1' }) });
      }
    }
  }, 120_000);

  it('replays the stored status, body and allow-listed headers with Idempotent-Replayed', async () => {
    const { journal } = await dynamoJournal();
    const { calls, handler } = countingHandler();
    const first = await guard(handler, journal)(httpEvent({ key: 'replay-1', body }));
    const replay = await guard(handler, journal)(httpEvent({ key: 'replay-1', body }));
    expect(calls).toHaveLength(1);
    expect(first.headers['Idempotent-Replayed']).toBeUndefined();
    expect(replay).toEqual({
      statusCode: 201,
      headers: { 'content-type': 'application/json', location: '/payments/pay_1', 'Idempotent-Replayed': 'true' },
      body: first.body,
    });
  });

  it('answers 422 to a changed request and leaves the original replayable', async () => {
    const { journal } = await dynamoJournal();
    const { calls, handler } = countingHandler();
    const first = await guard(handler, journal)(httpEvent({ key: 'mismatch-1', body }));
    const mismatch = await guard(handler, journal)(httpEvent({ key: 'mismatch-1', body: { ...body, amount: 9999 } }));
    const replay = await guard(handler, journal)(httpEvent({ key: 'mismatch-1', body }));
    expect(mismatch.statusCode).toBe(422);
    expect(mismatch.headers['content-type']).toBe('application/problem+json');
    expect(JSON.parse(mismatch.body).type).toBe('urn:idemkit:problem:idempotency-key-reused');
    expect(replay.body).toBe(first.body);
    expect(calls).toHaveLength(1);
  });

  it('matches reordered JSON fields and whitespace as the same request', async () => {
    const { journal } = await dynamoJournal();
    const { calls, handler } = countingHandler();
    await guard(handler, journal)(httpEvent({ key: 'order-1', rawBody: '{"amount":1250,"currency":"EUR"}' }));
    const reordered = await guard(
      handler,
      journal,
    )(httpEvent({ key: 'order-1', rawBody: '{ "currency" : "EUR",\n "amount": 1250 }' }));
    expect(reordered.statusCode).toBe(201);
    expect(reordered.headers['Idempotent-Replayed']).toBe('true');
    expect(calls).toHaveLength(1);
  });

  it('lets a retry run again after the handler threw', async () => {
    const { journal } = await dynamoJournal();
    let runs = 0;
    const flaky = async () => {
      runs++;
      if (runs === 1) throw new Error('downstream timeout');
      return { statusCode: 200, body: 'ok' };
    };
    await expect(guard(flaky, journal)(httpEvent({ key: 'throw-1', body }))).rejects.toThrow('downstream timeout');
    const retry = await guard(flaky, journal)(httpEvent({ key: 'throw-1', body }));
    expect(retry).toMatchObject({ statusCode: 200, body: 'ok' });
    expect(runs).toBe(2);
  });

  it('releases a 5xx and replays a 4xx the handler returned', async () => {
    const { journal } = await dynamoJournal();
    let runs = 0;
    const answer = (statusCode: number) => async () => {
      runs++;
      return { statusCode, body: `status ${statusCode}` };
    };
    await guard(answer(503), journal)(httpEvent({ key: '5xx', body }));
    await guard(answer(503), journal)(httpEvent({ key: '5xx', body }));
    expect(runs).toBe(2);
    runs = 0;
    await guard(answer(400), journal)(httpEvent({ key: '4xx', body }));
    const replay = await guard(answer(400), journal)(httpEvent({ key: '4xx', body }));
    expect(replay).toMatchObject({ statusCode: 400, body: 'status 400', headers: { 'Idempotent-Replayed': 'true' } });
    expect(runs).toBe(1);
  });

  it('keeps tenants apart: the same key from two tenants runs twice', async () => {
    const { journal } = await dynamoJournal();
    const { calls, handler } = countingHandler();
    const alice = await guard(handler, journal)(httpEvent({ key: 'shared-key', body, sub: 'alice' }));
    const bob = await guard(handler, journal)(httpEvent({ key: 'shared-key', body, sub: 'bob' }));
    expect(calls).toHaveLength(2);
    expect(alice.body).not.toBe(bob.body);
    expect(bob.headers['Idempotent-Replayed']).toBeUndefined();
  });

  it('runs again when the record is past expiresAt but still present, logged expired and counted', async () => {
    const client = localClient();
    const tableName = await createJournalTable(client);
    const clock = { now: Date.now() };
    const journal = new DynamoDBJournal({ tableName, client, clock: () => clock.now });
    const metricsSpy = jest.spyOn(Metrics.prototype, 'addMetric');
    const { calls, handler } = countingHandler();
    const logger = { info: jest.fn(), error: jest.fn() };
    const guarded = guard(handler, journal, { ttlSeconds: 60, clock: () => clock.now, logger: logger as never });
    await guarded(httpEvent({ key: 'expiring', body }));
    clock.now += 61_000;
    const again = await guarded(httpEvent({ key: 'expiring', body }));
    expect(again.headers['Idempotent-Replayed']).toBeUndefined();
    expect(calls).toHaveLength(2);
    expect(logger.info).toHaveBeenLastCalledWith(
      'idempotency',
      expect.objectContaining({ idempotency_status: 'expired' }),
    );
    expect(metricsSpy.mock.calls.map((c) => c[0])).toContain(MetricName.expiredKeyRetry);
    metricsSpy.mockRestore();
  });

  it('answers 503 without running the handler when the journal cannot be reached', async () => {
    const client = localClient({ endpoint: 'http://127.0.0.1:9', maxAttempts: 2 });
    const journal = new DynamoDBJournal({ tableName: 'unreachable', client });
    const { calls, handler } = countingHandler();
    const answer = await guard(handler, journal)(httpEvent({ key: 'down', body }));
    expect(answer.statusCode).toBe(503);
    expect(answer.headers['retry-after']).toBe('1');
    expect(JSON.parse(answer.body).type).toBe('urn:idemkit:problem:journal-unavailable');
    expect(calls).toHaveLength(0);
  });

  it('costs 2 DynamoDB calls for a new key, 1 for a replay and 0 for a replay from the local cache', async () => {
    const client = localClient();
    const tableName = await createJournalTable(client);
    const counter = countCalls(client);
    const journal = new DynamoDBJournal({ tableName, client });
    const { handler } = countingHandler();
    const cached = guard(handler, journal, { localCache: { maxItems: 100 } });
    counter.reset();
    await cached(httpEvent({ key: 'calls', body }));
    expect(counter.total()).toBe(2);
    counter.reset();
    await guard(handler, journal)(httpEvent({ key: 'calls', body }));
    expect(counter.total()).toBe(1);
    counter.reset();
    const fromCache = await cached(httpEvent({ key: 'calls', body }));
    expect(counter.total()).toBe(0);
    expect(fromCache.headers['Idempotent-Replayed']).toBe('true');
  });

  it('answers 409 with Retry-After while the first attempt holds its lease, or waits for it with policy wait', async () => {
    const { journal, client } = await dynamoJournal();
    let running!: () => void;
    const firstRunning = new Promise<void>((resolve) => (running = resolve));
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const slow = async () => {
      running();
      await released;
      return { statusCode: 201, body: 'slow' };
    };
    const first = guard(slow, journal)(httpEvent({ key: 'slow', body }));
    await firstRunning;
    const rejected = await guard(slow, journal)(httpEvent({ key: 'slow', body }));
    expect(rejected.statusCode).toBe(409);
    expect(JSON.parse(rejected.body).type).toBe('urn:idemkit:problem:request-in-progress');
    const waiterMetTheRecord = nextCallAnswered(client);
    const waiting = guard(slow, journal, { inProgress: 'wait', waitMs: 5_000 })(httpEvent({ key: 'slow', body }));
    await waiterMetTheRecord;
    release();
    await first;
    expect(await waiting).toMatchObject({ statusCode: 201, body: 'slow', headers: { 'Idempotent-Replayed': 'true' } });
  });
});

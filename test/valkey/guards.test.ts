import { randomUUID } from 'node:crypto';
import {
  idempotencyOf,
  JournalFeatureUnsupportedError,
  makeIdempotent,
  NeedsReviewError,
  RecordStatus,
  UniqueConflictError,
} from '../../src/index.js';
import { sqsConsumer } from '../../src/sqs/index.js';
import { ValkeyJournal } from '../../src/entries/valkey.js';
import { countingHandler, guard } from '../http/guarded-handler.js';
import { httpEvent, lambdaContext } from '../support/lambda.js';
import { sqsRecord } from '../support/sqs.js';
import { startValkeyServer, type ValkeyServer } from '../support/valkey.js';

/*
 * The guards a user meets, on a ValkeyJournal over a real redis-server: the Middy middleware,
 * makeIdempotent and the SQS consumer, each as one Lambda container would run it (a fresh journal
 * on its own client per container where two containers race).
 */
let server: ValkeyServer;
beforeAll(async () => {
  server = await startValkeyServer();
});
afterAll(() => server?.stop());

const quiet = { warn: () => undefined };
const journalOn = (clock?: () => number) => new ValkeyJournal({ client: server.client(), logger: quiet, clock });
const body = { amount: 1250, currency: 'EUR', orderId: 'ord_1' };

/** A clock the test moves, shared by the guard and the journal as one container's would be. */
function testClock() {
  let now = Date.now();
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

/** A promise the test resolves: a handler awaiting it stays in its effect until then. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

describe('httpIdempotency on a ValkeyJournal', () => {
  it('runs a new request once, replays it with Idempotent-Replayed, and answers 422 to a changed one', async () => {
    const journal = journalOn();
    const { calls, handler } = countingHandler();
    const key = randomUUID();

    const first = await guard(handler, journal)(httpEvent({ key, body }));
    const replay = await guard(handler, journalOn())(httpEvent({ key, body }));
    const changed = await guard(handler, journal)(httpEvent({ key, body: { ...body, amount: 1 } }));

    expect(first).toMatchObject({ statusCode: 201, body: JSON.stringify({ id: 'pay_1' }) });
    expect(replay).toEqual({
      statusCode: 201,
      headers: { 'content-type': 'application/json', location: '/payments/pay_1', 'Idempotent-Replayed': 'true' },
      body: first.body,
    });
    expect(changed.statusCode).toBe(422);
    expect(JSON.parse(changed.body).type).toBe('urn:idemkit:problem:idempotency-key-reused');
    expect(calls).toHaveLength(1);
  });

  it('runs the handler once for 30 concurrent callers with one key, each on its own client', async () => {
    const { calls, handler } = countingHandler();
    const key = randomUUID();
    const answers = await Promise.all(
      Array.from({ length: 30 }, () => guard(handler, journalOn())(httpEvent({ key, body }))),
    );
    expect(calls).toHaveLength(1);
    for (const answer of answers) expect([201, 409]).toContain(answer.statusCode);
    expect(answers.filter((answer) => answer.statusCode === 201)).not.toHaveLength(0);
  });

  it('answers 409 request-in-progress with Retry-After while the first attempt runs', async () => {
    const journal = journalOn();
    const running = gate();
    const release = gate();
    const slow = async () => {
      running.open();
      await release.opened;
      return { statusCode: 201, body: '{}' };
    };
    const key = randomUUID();
    const first = guard(slow, journal)(httpEvent({ key, body }));
    await running.opened;

    const second = await guard(slow, journalOn())(httpEvent({ key, body }));

    expect(second.statusCode).toBe(409);
    expect(JSON.parse(second.body).type).toBe('urn:idemkit:problem:request-in-progress');
    expect(second.headers['retry-after']).toBe('1');
    release.open();
    expect((await first).statusCode).toBe(201);
  });

  it('answers 503 journal-unavailable, without server text, when the server is unreachable', async () => {
    const { calls, handler } = countingHandler();
    const { Valkey } = await import('iovalkey');
    const client = new Valkey({
      host: '127.0.0.1',
      port: 1,
      lazyConnect: true,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
    });
    try {
      const journal = new ValkeyJournal({ client, logger: quiet });
      const answer = await guard(handler, journal)(httpEvent({ key: randomUUID(), body }));
      expect(answer.statusCode).toBe(503);
      expect(JSON.parse(answer.body).type).toBe('urn:idemkit:problem:journal-unavailable');
      expect(answer.body).not.toMatch(/127\.0\.0\.1|ECONNREFUSED|connect/i);
      expect(calls).toHaveLength(0);
    } finally {
      client.disconnect();
    }
  });
});

describe('makeIdempotent on a ValkeyJournal', () => {
  it('takes over the record of a container that stalled before any effect, and fences the stalled one out', async () => {
    const clock = testClock();
    const stalled = gate();
    const inside = gate();
    let runs = 0;
    const charge = (journal: ValkeyJournal) =>
      makeIdempotent(
        async (input: { id: string }) => {
          runs++;
          if (runs === 1) {
            inside.open();
            await stalled.opened;
          }
          return `charged ${input.id} on run ${runs}`;
        },
        { journal, operation: 'charge', key: (input) => input.id, leaseMs: 5_000, clock: clock.now },
      );
    const id = randomUUID();
    const first = charge(journalOn(clock.now))({ id });
    await inside.opened;
    clock.advance(6_000);

    const second = await charge(journalOn(clock.now))({ id });
    stalled.open();
    const late = await first;

    expect(second).toBe(`charged ${id} on run 2`);
    // The stalled attempt's completion is fenced: it gets the outcome the takeover stored, never overwrites it.
    expect(late).toBe(second);
    expect((await journalOn().get(`req#-#charge#${id}`))?.response?.value).toBe(second);
    expect(await charge(journalOn(clock.now))({ id })).toBe(second);
    expect(runs).toBe(2);
  });

  it('marks the record UNKNOWN when its attempt vanished after beginEffect, and never runs it again', async () => {
    const clock = testClock();
    const stalled = gate();
    const inside = gate();
    let runs = 0;
    const journal = journalOn(clock.now);
    const charge = makeIdempotent(
      async (_input: { id: string }, context) => {
        runs++;
        await idempotencyOf(context).beginEffect('charge');
        inside.open();
        await stalled.opened;
        return 'charged';
      },
      { journal, operation: 'charge-effect', key: (input) => input.id, leaseMs: 5_000, clock: clock.now },
    );
    const id = randomUUID();
    const first = charge({ id }).catch((error: unknown) => error);
    await inside.opened;
    clock.advance(6_000);

    await expect(charge({ id })).rejects.toBeInstanceOf(NeedsReviewError);

    const record = await journal.get(`req#-#charge-effect#${id}`);
    expect(record).toMatchObject({ status: RecordStatus.unknown, effectStarted: true, effectName: 'charge' });
    expect(record?.expiresAtEpochSeconds).toBeUndefined();
    // No server TTL either: an UNKNOWN record stays until an operator decides.
    expect(await server.client().pttl(journal.keyOf(`req#-#charge-effect#${id}`))).toBe(-1);
    stalled.open();
    await first;
    expect(runs).toBe(1);
  });

  it('refuses stage(), claimUnique() and publish() with JournalFeatureUnsupportedError, writing nothing', async () => {
    const journal = journalOn();
    for (const use of ['stage', 'claimUnique', 'publish'] as const) {
      const fn = makeIdempotent(
        async (_input: { id: string }, context) => {
          const scope = idempotencyOf(context);
          if (use === 'stage') scope.stage({ Put: { TableName: 't', Item: { pk: 'x' } } });
          if (use === 'claimUnique') scope.claimUnique('email', 'a@example.com');
          if (use === 'publish') scope.publish({ type: 'OrderPlaced', detail: {} });
          return 'done';
        },
        { journal, operation: `refuse-${use}`, key: (input) => input.id },
      );
      const id = randomUUID();
      const error = await fn({ id }).catch((thrown: unknown) => thrown);
      expect(error).toBeInstanceOf(JournalFeatureUnsupportedError);
      expect((error as JournalFeatureUnsupportedError).feature).toBe(`${use}()`);
      expect(await journal.get(`req#-#refuse-${use}#${id}`)).toBeUndefined();
    }
    expect(() =>
      makeIdempotent(async () => 'x', { journal, operation: 'op', key: () => 'k', effects: 'staged-only' }),
    ).toThrow(JournalFeatureUnsupportedError);
  });

  it('holds a uniqueness claim before the effect: a second operation with the same value is refused', async () => {
    const journal = journalOn();
    const email = `${randomUUID()}@example.com`;
    const signUp = makeIdempotent(
      async (input: { id: string; email: string }, context) => {
        await idempotencyOf(context).holdUnique('email', input.email);
        return `account ${input.id}`;
      },
      { journal, operation: 'sign-up', key: (input) => input.id },
    );
    expect(await signUp({ id: 'a', email })).toBe('account a');
    await expect(signUp({ id: 'b', email })).rejects.toBeInstanceOf(UniqueConflictError);
  });
});

describe('sqsConsumer on a ValkeyJournal', () => {
  it('handles each message once, and suppresses its redeliveries', async () => {
    const journal = journalOn();
    const handled: string[] = [];
    const consumer = sqsConsumer(
      async (record) => {
        handled.push(record.body);
      },
      { journal, consumer: `orders-${randomUUID()}` },
    );
    const records = ['m1', 'm2', 'm3'].map((id) => sqsRecord(`order ${id}`, { messageId: id }));

    const first = await consumer({ Records: records }, lambdaContext());
    const redelivered = await consumer({ Records: [records[1]!, records[2]!] }, lambdaContext());

    expect(first.batchItemFailures).toEqual([]);
    expect(redelivered.batchItemFailures).toEqual([]);
    expect(handled.sort()).toEqual(['order m1', 'order m2', 'order m3']);
  });
});

import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import express from 'express';
import { createServer, type Server } from 'node:http';
import { idempotency } from '../../src/entries/express.js';
import { LEASE_MEMORY_MS } from '../../src/engine/lease-memory.js';
import { DynamoDBJournal, InProgressError, makeIdempotent, MemoryOutcomeCache } from '../../src/index.js';
import type { CachedOutcome, OutcomeCache } from '../../src/index.js';
import { countCalls, createJournalTable, localClient } from '../support/dynamodb.js';
import { httpEvent, lambdaContext } from '../support/lambda.js';
import { guard } from '../http/guarded-handler.js';

/**
 * A retry storm on one key in one process (Lambda Managed Instances: many invocations at once in one handler
 * instance) against DynamoDB Local: the journal calls it costs are counted on the SDK client, and must stay a small
 * constant whatever the storm's size. "Another process" is another journal instance over the same table, with a
 * client of its own whose calls are not counted.
 */

const STORM = 300;
/** Journal calls a storm of {@link STORM} attempts may cost at most: a constant, not a share of the storm. */
const BOUNDED = 4;
const body = { amount: 1250, currency: 'EUR' };

interface Table {
  journal: DynamoDBJournal;
  otherProcess: DynamoDBJournal;
  calls: ReturnType<typeof countCalls>;
}

async function table(): Promise<Table> {
  const client = localClient();
  const tableName = await createJournalTable(client);
  const calls = countCalls(client);
  return {
    journal: new DynamoDBJournal({ tableName, client }),
    otherProcess: new DynamoDBJournal({ tableName, client: localClient() }),
    calls,
  };
}

/** A handler that counts its runs and, when gated, waits for the gate before it answers (only for `gatedKey` if given). */
function payments(gate?: Promise<void>, gatedKey?: string) {
  const runs: string[] = [];
  let started!: () => void;
  const running = new Promise<void>((resolve) => (started = resolve));
  const handler = async (event: APIGatewayProxyEventV2) => {
    runs.push(event.body ?? '');
    if (gatedKey !== undefined && event.headers['idempotency-key'] !== gatedKey) return answer(runs.length);
    started();
    if (gate) await gate;
    return answer(runs.length);
  };
  return { runs, running, handler };
}

function answer(n: number) {
  return { statusCode: 201, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ n }) };
}

function gate(): { opened: Promise<void>; open: () => void } {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function storm<T>(size: number, attempt: (i: number) => Promise<T>): Promise<T[]> {
  return Promise.all(Array.from({ length: size }, (_, i) => attempt(i)));
}

const newKey = () => `storm-${Math.random().toString(36).slice(2)}`;

describe('a storm on one key in one process, through the Middy middleware on DynamoDB Local', () => {
  it('runs a new key’s slow handler once and refuses the rest with 409, in a bounded number of calls', async () => {
    const { journal, calls } = await table();
    const slow = gate();
    const { runs, running, handler } = payments(slow.opened);
    const guarded = guard(handler, journal);
    const key = newKey();
    calls.reset();

    const answers = storm(STORM, () => guarded(httpEvent({ key, body })));
    await running;
    const refused = await Promise.race([answers, sleep(2_000).then(() => 'still waiting')]);
    expect(refused).toBe('still waiting');
    slow.open();
    const statuses = (await answers).map((a) => a.statusCode);

    expect(runs).toHaveLength(1);
    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    expect(statuses.filter((s) => s === 409)).toHaveLength(STORM - 1);
    expect(calls.total()).toBeLessThanOrEqual(BOUNDED);
  }, 30_000);

  it('forgets a lease this process ended: the next attempt replays the outcome at once, not 409 from memory', async () => {
    const { journal } = await table();
    const slow = gate();
    const { runs, running, handler } = payments(slow.opened);
    const guarded = guard(handler, journal);
    const key = newKey();
    const answers = storm(STORM, () => guarded(httpEvent({ key, body })));
    await running;
    const duringRun = await guarded(httpEvent({ key, body }));
    slow.open();
    await answers;

    const afterRun = await guarded(httpEvent({ key, body }));

    expect(duringRun.statusCode).toBe(409);
    expect(afterRun).toMatchObject({ statusCode: 201, headers: { 'Idempotent-Replayed': 'true' } });
    expect(runs).toHaveLength(1);
  }, 30_000);

  it('keeps tenants apart: a storm of one key from two tenants at once runs once per tenant', async () => {
    const { journal } = await table();
    const { runs, handler } = payments();
    const guarded = guard(handler, journal);
    const key = newKey();

    const answers = await storm(STORM, (i) => guarded(httpEvent({ key, body, sub: i % 2 ? 'tenant-a' : 'tenant-b' })));

    expect(runs).toHaveLength(2);
    expect(answers.filter((a) => a.statusCode === 201 && !a.headers['Idempotent-Replayed'])).toHaveLength(2);
    expect(answers.every((a) => a.statusCode === 201 || a.statusCode === 409)).toBe(true);
  }, 30_000);

  it('replays a completed key to every attempt of a storm in a bounded number of calls', async () => {
    const { journal, calls } = await table();
    const { runs, handler } = payments();
    const guarded = guard(handler, journal);
    const key = newKey();
    const first = await guarded(httpEvent({ key, body }));
    calls.reset();

    const answers = await storm(STORM, () => guarded(httpEvent({ key, body })));

    expect(runs).toHaveLength(1);
    for (const answer of answers) {
      expect(answer).toMatchObject({ statusCode: 201, body: first.body, headers: { 'Idempotent-Replayed': 'true' } });
    }
    expect(calls.total()).toBeLessThanOrEqual(BOUNDED);
  }, 30_000);

  it('gives each replay of a storm its own response: what one caller changes never reaches another', async () => {
    const { journal } = await table();
    const order = makeIdempotent(
      async (input: { orderId: string }) => ({ orderId: input.orderId, callers: [] as number[] }),
      {
        journal,
        operation: 'order',
        key: (input) => input.orderId,
      },
    );
    const orderId = newKey();
    await order({ orderId }, lambdaContext());

    const answers = await storm(STORM, async (i) => {
      const answer = await order({ orderId }, lambdaContext());
      answer.callers.push(i);
      return answer;
    });

    for (const [i, answer] of answers.entries()) expect(answer.callers).toEqual([i]);
  }, 30_000);

  it('refuses a storm on a key another process holds in bounded calls, then from memory with no call', async () => {
    const { journal, otherProcess, calls } = await table();
    const slow = gate();
    const elsewhere = payments(slow.opened);
    const key = newKey();
    const held = guard(elsewhere.handler, otherProcess)(httpEvent({ key, body }));
    await elsewhere.running;
    const { runs, handler } = payments();
    const guarded = guard(handler, journal, { retryAfterSeconds: 3 });
    calls.reset();

    const firstWave = await storm(STORM, () => guarded(httpEvent({ key, body })));
    const afterFirstWave = calls.total();
    const secondWave = await storm(STORM, () => guarded(httpEvent({ key, body })));

    expect(runs).toHaveLength(0);
    for (const answer of [...firstWave, ...secondWave]) {
      expect(answer.statusCode).toBe(409);
      expect(answer.headers['retry-after']).toBe('3');
    }
    expect(afterFirstWave).toBeLessThanOrEqual(BOUNDED);
    expect(calls.total()).toBe(afterFirstWave);
    slow.open();
    await held;
  }, 30_000);

  it('refuses from memory until the lease may end (Retry-After no later), then asks the journal: the takeover rules apply', async () => {
    const { journal, otherProcess, calls } = await table();
    const never = gate();
    const elsewhere = payments(never.opened);
    const key = newKey();
    void guard(elsewhere.handler, otherProcess, { leaseMs: 1_500 })(httpEvent({ key, body }));
    await elsewhere.running;
    const { runs, handler } = payments();
    const guarded = guard(handler, journal, { retryAfterSeconds: 30 });

    const whileHeld = await storm(STORM, () => guarded(httpEvent({ key, body })));
    calls.reset();
    await sleep(1_600);
    const afterLease = await storm(STORM, () => guarded(httpEvent({ key, body })));

    expect(whileHeld.every((a) => a.statusCode === 409 && Number(a.headers['retry-after']) <= 2)).toBe(true);
    // The lease ended with no effect begun: the takeover rules let exactly one attempt of this process run again.
    expect(runs).toHaveLength(1);
    const fresh = afterLease.filter((a) => a.statusCode === 201 && !a.headers['Idempotent-Replayed']);
    expect(fresh).toHaveLength(1);
    // The others lost the takeover: refused, or, once the winner completed, its replay.
    const others = afterLease.filter((a) => !fresh.includes(a));
    expect(others.every((a) => a.statusCode === 409 || a.headers['Idempotent-Replayed'] === 'true')).toBe(true);
    expect(calls.total()).toBeGreaterThan(0);
    expect(calls.total()).toBeLessThanOrEqual(BOUNDED + 2);
    never.open();
  }, 30_000);

  it('answers 422 to every attempt of a storm that reuses the key with another payload', async () => {
    const { journal, calls } = await table();
    const slow = gate();
    const { runs, running, handler } = payments(slow.opened);
    const guarded = guard(handler, journal);
    const key = newKey();
    const other = { ...body, amount: 1 };
    calls.reset();

    const answers = storm(STORM, (i) => guarded(httpEvent({ key, body: i % 3 === 2 ? other : body })));
    await running;
    // The lease is remembered now: the same payload is refused from memory, another asks the journal.
    const before = calls.total();
    const late = await storm(30, (i) => guarded(httpEvent({ key, body: i % 2 ? other : body })));
    const lateCalls = calls.total() - before;
    slow.open();
    const all = await answers;

    expect(runs).toHaveLength(1);
    const winner = JSON.parse(runs[0]);
    for (const [i, answer] of all.entries()) {
      const sent = i % 3 === 2 ? other : body;
      if (sent.amount !== winner.amount) expect(answer.statusCode).toBe(422);
      else expect([201, 409]).toContain(answer.statusCode);
    }
    for (const [i, answer] of late.entries()) {
      const sent = i % 2 ? other : body;
      expect(answer.statusCode).toBe(sent.amount === winner.amount ? 409 : 422);
    }
    expect(lateCalls).toBeLessThanOrEqual(BOUNDED);
  }, 30_000);

  it('keeps the normal call count of other keys while one key storms', async () => {
    const { journal } = await table();
    const slow = gate();
    const hot = newKey();
    const { running, handler } = payments(slow.opened, hot);
    const logger = { info: jest.fn(), error: jest.fn() };
    const guarded = guard(handler, journal, { logger: logger as never });

    const hotStorm = storm(STORM, () => guarded(httpEvent({ key: hot, body })));
    await running;
    const coldKeys = Array.from({ length: 20 }, () => newKey());
    const cold = await storm(coldKeys.length, (i) => guarded(httpEvent({ key: coldKeys[i], body })));
    slow.open();
    await hotStorm;

    expect(cold.every((a) => a.statusCode === 201)).toBe(true);
    const lines = logger.info.mock.calls.map((call) => call[1] as Record<string, unknown>);
    const coldLines = lines.filter((line) => line.idempotency_status === 'new' && line.journal_calls !== undefined);
    // 20 cold keys and the hot key's one run: each a reservation and a completion, two calls.
    expect(coldLines).toHaveLength(coldKeys.length + 1);
    expect(coldLines.every((line) => line.journal_calls === 2)).toBe(true);
    const inProgress = lines.filter((line) => line.idempotency_status === 'in_progress');
    expect(inProgress).toHaveLength(STORM - 1);
    expect(inProgress.every((line) => line.journal_calls === 0 || line.journal_calls === 1)).toBe(true);
  }, 30_000);

  it('waits with policy wait until the outcome is stored, every waiter replaying it, in bounded calls', async () => {
    const { journal, calls } = await table();
    const slow = gate();
    const { runs, running, handler } = payments(slow.opened);
    const guarded = guard(handler, journal, { inProgress: 'wait', waitMs: 5_000 });
    const key = newKey();
    calls.reset();

    const answers = storm(STORM, () => guarded(httpEvent({ key, body })));
    await running;
    await sleep(500);
    slow.open();
    const all = await answers;

    expect(runs).toHaveLength(1);
    expect(all.every((a) => a.statusCode === 201)).toBe(true);
    // A reservation, a completion, and the shared polls of about 600 ms: far below one call per waiter.
    expect(calls.total()).toBeLessThan(STORM / 10);
  }, 30_000);
});

describe('a storm through makeIdempotent on DynamoDB Local', () => {
  it('runs once, refuses the rest as in progress, then replays to a storm, each in bounded calls', async () => {
    const { journal, calls } = await table();
    const slow = gate();
    let runs = 0;
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    const charge = makeIdempotent(
      async (input: { orderId: string }) => {
        runs++;
        started();
        await slow.opened;
        return { charged: input.orderId };
      },
      { journal, operation: 'charge', key: (input) => input.orderId },
    );
    const orderId = newKey();
    calls.reset();

    const first = storm(STORM, () =>
      charge({ orderId }, lambdaContext()).then(
        (r) => r,
        (e: unknown) => e,
      ),
    );
    await running;
    slow.open();
    const answers = await first;
    const firstCalls = calls.total();
    calls.reset();
    const replays = await storm(STORM, () => charge({ orderId }, lambdaContext()));

    expect(runs).toBe(1);
    expect(answers.filter((a) => a instanceof InProgressError)).toHaveLength(STORM - 1);
    expect(replays.every((r) => r.charged === orderId)).toBe(true);
    expect(firstCalls).toBeLessThanOrEqual(BOUNDED);
    expect(calls.total()).toBeLessThanOrEqual(BOUNDED);
  }, 30_000);
});

describe('a storm through the Express door, many requests at once on 127.0.0.1', () => {
  let server: Server;
  afterEach(async () => new Promise<void>((resolve) => server.close(() => resolve())));

  // Requests over new connections arrive spread out, not within one journal call: the replays of a completed key are
  // shared by the outcome cache, the refusals of a live lease by the single-flight and the lease memory.
  it('runs once, refuses the rest with 409, then replays to a storm, each in bounded calls', async () => {
    const { journal, calls } = await table();
    const slow = gate();
    let runs = 0;
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    const app = express();
    app.post('/payments', idempotency({ journal, localCache: { maxItems: 100 } }), express.json(), async (req, res) => {
      runs++;
      started();
      await slow.opened;
      res.status(201).json({ run: runs, amount: req.body.amount });
    });
    server = createServer(app);
    server.keepAliveTimeout = 1;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    const key = newKey();
    let answered = 0;
    let othersAnswered!: () => void;
    const allButOne = new Promise<void>((resolve) => (othersAnswered = resolve));
    const post = async () => {
      const response = await fetch(`http://127.0.0.1:${port}/payments`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'idempotency-key': key, connection: 'close' },
        body: JSON.stringify(body),
      });
      const answer = {
        status: response.status,
        body: await response.text(),
        replayed: response.headers.get('idempotent-replayed'),
      };
      if (++answered === STORM - 1) othersAnswered();
      return answer;
    };
    calls.reset();

    const startedAt = Date.now();
    const first = storm(STORM, post);
    await running;
    // Every other request is answered while the first still runs: refused, from the shared call or from memory.
    await allButOne;
    const waveMs = Date.now() - startedAt;
    slow.open();
    const answers = await first;
    const firstCalls = calls.total();
    calls.reset();
    const replays = await storm(STORM, post);

    expect(runs).toBe(1);
    const winner = answers.find((a) => a.status === 201)!;
    expect(answers.filter((a) => a.status === 409)).toHaveLength(STORM - 1);
    expect(replays.every((r) => r.status === 201 && r.body === winner.body && r.replayed === 'true')).toBe(true);
    // Requests over new connections spread over the wave: the memory of a lease lasts a second, then one call renews it.
    expect(firstCalls).toBeLessThanOrEqual(BOUNDED + Math.ceil(waveMs / LEASE_MEMORY_MS));
    expect(calls.total()).toBeLessThanOrEqual(BOUNDED);
  }, 60_000);
});

describe('a poisoned outcome cache never gives a wrong answer', () => {
  /** A cache that lies as `poison` says, and records what it was asked. */
  function poisoned(poison: (pk: string) => Promise<CachedOutcome | undefined>, timeoutMs?: number): OutcomeCache {
    return { get: poison, set: async () => undefined, ...(timeoutMs === undefined ? {} : { timeoutMs }) };
  }

  const lies: [string, (stolen: CachedOutcome) => OutcomeCache][] = [
    ['returns another key’s entry', (stolen) => poisoned(async () => stolen)],
    [
      'returns this key with another fingerprint',
      (stolen) => poisoned(async (pk) => ({ ...stolen, pk, fingerprint: '0'.repeat(64) })),
    ],
    [
      'returns an entry past its expiry',
      (stolen) => poisoned(async (pk) => ({ ...stolen, pk, expiresAtEpochSeconds: 1 })),
    ],
    ['returns something that is no entry', () => poisoned(async () => 'garbage' as never)],
    ['throws', () => poisoned(async () => Promise.reject(new Error('cache down')))],
    [
      'throws before it returns a promise',
      () =>
        poisoned(() => {
          throw new Error('cache down');
        }),
    ],
    ['hangs past its bound', () => poisoned(() => new Promise(() => undefined), 20)],
  ];

  it.each(lies)(
    'when it %s: a new key runs, a completed key replays its own outcome',
    async (_name, lie) => {
      const { journal } = await table();
      const entries: CachedOutcome[] = [];
      const recording: OutcomeCache = {
        get: async () => undefined,
        set: async (_pk, entry) => void entries.push(entry),
      };
      const { runs, handler } = payments();
      const stolenAnswer = await guard(handler, journal, { outcomeCache: recording })(
        httpEvent({ key: newKey(), body }),
      );
      const [stolen] = entries;
      const guarded = guard(handler, journal, { outcomeCache: lie(stolen) });
      const key = newKey();

      const fresh = await guarded(httpEvent({ key, body }));
      const replay = await guarded(httpEvent({ key, body }));
      const mismatch = await guarded(httpEvent({ key, body: { ...body, amount: 2 } }));

      expect(runs).toHaveLength(2);
      expect(fresh.statusCode).toBe(201);
      expect(fresh.body).not.toBe(stolenAnswer.body);
      expect(fresh.headers['Idempotent-Replayed']).toBeUndefined();
      expect(replay).toMatchObject({ statusCode: 201, body: fresh.body, headers: { 'Idempotent-Replayed': 'true' } });
      expect(mismatch.statusCode).toBe(422);
    },
    30_000,
  );

  it('replays from an honest cache with no journal call, and only for the same payload', async () => {
    const { journal, calls } = await table();
    const { runs, handler } = payments();
    const guarded = guard(handler, journal, { outcomeCache: new MemoryOutcomeCache({ maxItems: 10 }) });
    const key = newKey();
    const first = await guarded(httpEvent({ key, body }));
    calls.reset();

    const replays = await storm(STORM, () => guarded(httpEvent({ key, body })));
    const fromCache = calls.total();
    const mismatch = await guarded(httpEvent({ key, body: { ...body, amount: 2 } }));

    expect(runs).toHaveLength(1);
    expect(replays.every((r) => r.body === first.body && r.headers['Idempotent-Replayed'] === 'true')).toBe(true);
    expect(fromCache).toBe(0);
    expect(mismatch.statusCode).toBe(422);
    expect(calls.total()).toBe(1);
  }, 30_000);
});

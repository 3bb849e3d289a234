import { randomUUID } from 'node:crypto';
import { Valkey } from 'iovalkey';
import { DynamoDBJournal, InvalidOptionsError, type CachedOutcome } from '../../src/index.js';
import { ValkeyJournal, ValkeyOutcomeCache } from '../../src/entries/valkey.js';
import { guard } from '../http/guarded-handler.js';
import { countCalls, createJournalTable, localClient } from '../support/dynamodb.js';
import { httpEvent } from '../support/lambda.js';
import { startValkeyServer, type ValkeyServer } from '../support/valkey.js';

/*
 * ValkeyOutcomeCache on a real redis-server, as the shared replay cache of guards whose records are in DynamoDB
 * Local. A "container" is a middleware of its own: its own DynamoDB client and journal, its own Valkey client and
 * cache, its own in-process state. What one container completes, another replays from the cache with no journal
 * call; whatever else the server holds under the key, or a server that is gone, costs journal calls and never a
 * wrong answer.
 */
let server: ValkeyServer;
let raw: Valkey;
let tableName: string;
const dynamodbClients: ReturnType<typeof localClient>[] = [];
beforeAll(async () => {
  server = await startValkeyServer();
  raw = server.client();
  const setup = localClient();
  dynamodbClients.push(setup);
  tableName = await createJournalTable(setup, 'vcache');
});
afterAll(async () => {
  for (const client of dynamodbClients.splice(0)) client.destroy();
  await server?.stop();
});

const body = { amount: 1250, currency: 'EUR', orderId: 'ord_1' };

/** The payments handler every container runs: each run answers a new id, so a replay of another run shows. */
function paymentsHandler() {
  let runs = 0;
  const handler = async () => {
    runs += 1;
    return {
      statusCode: 201,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ id: `pay_${runs}` }),
    };
  };
  return { handler, runs: () => runs };
}

/** One container: its journal on its own DynamoDB client (counted), its cache on its own Valkey client. */
function container(handler: ReturnType<typeof paymentsHandler>['handler'], cacheClient: Valkey = server.client()) {
  const dynamodb = localClient();
  dynamodbClients.push(dynamodb);
  const calls = countCalls(dynamodb);
  const cache = new ValkeyOutcomeCache({ client: cacheClient });
  const logger = { info: jest.fn(), error: jest.fn(), warn: jest.fn(), debug: jest.fn() };
  const guarded = guard(handler, new DynamoDBJournal({ tableName, client: dynamodb }), {
    outcomeCache: cache,
    logger: logger as never,
  });
  const lastLine = () => logger.info.mock.calls.at(-1)?.[1] as Record<string, unknown>;
  return { guarded, calls, cache, lastLine };
}

/** The cache key of an idempotency key (one entry per test key), once the not-awaited `SET` has landed. */
async function cachedKeyOf(key: string, client: Valkey = raw): Promise<string> {
  for (let waited = 0; waited < 5_000; waited += 10) {
    const [found] = await client.keys(`idemkit:cache:*${key}`);
    if (found) return found;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`no cache entry for ${key}`);
}

const forged = JSON.stringify({ value: { statusCode: 200, headers: {}, body: '{"id":"forged"}' } });

describe('ValkeyOutcomeCache shared by two containers over DynamoDB', () => {
  it('replays in container B, with no journal call, what container A completed', async () => {
    const { handler, runs } = paymentsHandler();
    const a = container(handler);
    const b = container(handler);
    const key = randomUUID();

    const first = await a.guarded(httpEvent({ key, body }));
    await cachedKeyOf(key);
    b.calls.reset();
    const replay = await b.guarded(httpEvent({ key, body }));

    expect(first.statusCode).toBe(201);
    expect(replay.statusCode).toBe(201);
    expect(replay.body).toBe(first.body);
    expect(replay.headers['Idempotent-Replayed']).toBe('true');
    expect(runs()).toBe(1);
    expect(b.calls.total()).toBe(0);
    expect(b.lastLine().journal_calls).toBe(0);
  });

  it('answers a changed payload under a cached key with the journal’s 422, never a replay', async () => {
    const { handler, runs } = paymentsHandler();
    const a = container(handler);
    const b = container(handler);
    const key = randomUUID();
    await a.guarded(httpEvent({ key, body }));
    await cachedKeyOf(key);

    const changed = await b.guarded(httpEvent({ key, body: { ...body, amount: 1 } }));

    expect(changed.statusCode).toBe(422);
    expect(b.calls.total()).toBeGreaterThan(0);
    expect(runs()).toBe(1);
  });

  /** What is written over a completed key's entry, from the true entry and another completed key's. */
  const poisons: Record<string, (own: CachedOutcome, other: CachedOutcome) => string> = {
    "another key's entry": (_, other) => JSON.stringify({ ...other, responseJson: forged }),
    "another key's entry, as it was stored": (_, other) => JSON.stringify(other),
    'another fingerprint': (own) => JSON.stringify({ ...own, fingerprint: 'f'.repeat(64), responseJson: forged }),
    'garbage JSON': () => 'not json {',
    'a truncated entry': (own) => JSON.stringify(own).slice(0, -20),
    'a truncated outcome': (own) => JSON.stringify({ ...own, responseJson: own.responseJson.slice(0, -5) }),
    'an expired entry': (own) =>
      JSON.stringify({ ...own, expiresAtEpochSeconds: Math.floor(Date.now() / 1000) - 60, responseJson: forged }),
    'an outcome that is not an object': (own) => JSON.stringify({ ...own, responseJson: '"forged"' }),
    'a fingerprint that is not a string': (own) => JSON.stringify({ ...own, fingerprint: null, responseJson: forged }),
  };

  it.each(Object.keys(poisons))('asks the journal and answers right over %s', async (poison) => {
    const { handler } = paymentsHandler();
    const a = container(handler);
    const b = container(handler);
    const key = randomUUID();
    const otherKey = randomUUID();
    const first = await a.guarded(httpEvent({ key, body }));
    await a.guarded(httpEvent({ key: otherKey, body }));
    const cacheKey = await cachedKeyOf(key);
    const own = JSON.parse((await raw.get(cacheKey))!) as CachedOutcome;
    const other = JSON.parse((await raw.get(await cachedKeyOf(otherKey)))!) as CachedOutcome;
    await raw.set(cacheKey, poisons[poison](own, other), 'PX', 60_000);
    b.calls.reset();

    const replay = await b.guarded(httpEvent({ key, body }));

    expect(replay.statusCode).toBe(201);
    expect(JSON.parse(replay.body)).toEqual({ id: 'pay_1' });
    expect(replay.body).toBe(first.body);
    expect(b.calls.total()).toBeGreaterThan(0);
  });

  it('asks the journal over a value of another type at the key (a server error)', async () => {
    const { handler } = paymentsHandler();
    const a = container(handler);
    const b = container(handler);
    const key = randomUUID();
    const first = await a.guarded(httpEvent({ key, body }));
    const cacheKey = await cachedKeyOf(key);
    await raw.del(cacheKey);
    await raw.hset(cacheKey, 'responseJson', forged);
    b.calls.reset();

    const replay = await b.guarded(httpEvent({ key, body }));

    expect(replay.body).toBe(first.body);
    expect(b.calls.total()).toBeGreaterThan(0);
  });

  it('answers right, from the journal, once the server is gone mid-test', async () => {
    const own = await startValkeyServer();
    const connect = () =>
      new Valkey({ host: '127.0.0.1', port: own.port, maxRetriesPerRequest: 1, retryStrategy: () => 200 });
    const clients = [connect(), connect(), connect()];
    try {
      const { handler, runs } = paymentsHandler();
      const a = container(handler, clients[0]);
      const b = container(handler, clients[1]);
      const before = randomUUID();
      const first = await a.guarded(httpEvent({ key: before, body }));
      await cachedKeyOf(before, clients[2]);
      b.calls.reset();
      expect((await b.guarded(httpEvent({ key: before, body }))).body).toBe(first.body);
      expect(b.calls.total()).toBe(0);

      await own.stop();
      const after = randomUUID();
      b.calls.reset();
      const replayed = await b.guarded(httpEvent({ key: before, body }));
      const created = await a.guarded(httpEvent({ key: after, body }));
      const replayedAfter = await b.guarded(httpEvent({ key: after, body }));

      expect(replayed).toMatchObject({ statusCode: 201, body: first.body });
      expect(created.statusCode).toBe(201);
      expect(replayedAfter).toMatchObject({ statusCode: 201, body: created.body });
      expect(replayedAfter.headers['Idempotent-Replayed']).toBe('true');
      expect(runs()).toBe(2);
      expect(b.calls.total()).toBeGreaterThanOrEqual(2);
    } finally {
      for (const client of clients) client.disconnect();
      await own.stop();
    }
  });

  it('works beside a ValkeyJournal on the same client and key prefix, whose records it never touches', async () => {
    const client = server.client();
    const journal = new ValkeyJournal({ client, keyPrefix: 'shared:', logger: { warn: () => undefined } });
    const cache = new ValkeyOutcomeCache({ client, keyPrefix: 'shared:' });
    const { handler, runs } = paymentsHandler();
    const key = randomUUID();
    const guarded = () => guard(handler, journal, { outcomeCache: cache });

    const first = await guarded()(httpEvent({ key, body }));
    const keys = async () => {
      for (;;) {
        const found = await client.keys(`shared:*${key}`);
        if (found.length === 2) return found;
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    };
    const [one, two] = await keys();
    const replay = await guarded()(httpEvent({ key, body }));

    expect(replay.body).toBe(first.body);
    expect(runs()).toBe(1);
    expect(new Set([await client.type(one), await client.type(two)])).toEqual(new Set(['hash', 'string']));
  });
});

describe('ValkeyOutcomeCache get and set', () => {
  const cache = () => new ValkeyOutcomeCache({ client: raw });
  const inAnHour = () => Math.floor(Date.now() / 1000) + 3600;
  const entry = (pk: string, extra: Partial<CachedOutcome> = {}): CachedOutcome => ({
    pk,
    fingerprint: 'a'.repeat(64),
    expiresAtEpochSeconds: inAnHour(),
    responseJson: JSON.stringify({ value: { statusCode: 201, body: '{}' } }),
    ...extra,
  });

  it('stores the documented JSON under a tagged key until the entry expires, and returns it', async () => {
    const pk = `req#-#POST /payments#${randomUUID()}`;
    const stored = entry(pk, { expiresAtEpochSeconds: Math.floor(Date.now() / 1000) + 120 });

    await cache().set(pk, stored, 3_600_000);

    const key = cache().keyOf(pk);
    expect(key).toMatch(/^idemkit:cache:\{[0-9a-f]{16}\}outcome#req#/);
    expect(JSON.parse((await raw.get(key))!)).toEqual(stored);
    const pttl = await raw.pttl(key);
    expect(pttl).toBeGreaterThan(110_000);
    expect(pttl).toBeLessThanOrEqual(120_000);
    expect(await cache().get(pk)).toEqual(stored);
  });

  it('keeps the TTL the guard asks for when it is shorter than the expiry', async () => {
    const pk = `req#-#op#${randomUUID()}`;
    await cache().set(pk, entry(pk), 5_000);
    expect(await raw.pttl(cache().keyOf(pk))).toBeLessThanOrEqual(5_000);
  });

  it('does not store an entry larger than maxEntryBytes, nor any part of it', async () => {
    const small = new ValkeyOutcomeCache({ client: raw, maxEntryBytes: 400 });
    const pk = `req#-#op#${randomUUID()}`;
    const fits = entry(pk);
    const tooLarge = entry(pk, { responseJson: JSON.stringify({ value: 'x'.repeat(400) }) });

    await small.set(pk, tooLarge, 60_000);
    expect(await raw.exists(small.keyOf(pk))).toBe(0);
    await small.set(pk, fits, 60_000);
    expect(await small.get(pk)).toEqual(fits);
  });

  it('stores nothing for an entry of another key, an expired one, or one that is not whole', async () => {
    const pk = `req#-#op#${randomUUID()}`;
    await cache().set(pk, entry(`${pk}-other`), 60_000);
    await cache().set(pk, entry(pk, { expiresAtEpochSeconds: Math.floor(Date.now() / 1000) - 1 }), 60_000);
    await cache().set(pk, entry(pk, { responseJson: 'not json' }), 60_000);
    await cache().set(pk, { ...entry(pk), fingerprint: undefined } as never, 60_000);
    expect(await raw.exists(cache().keyOf(pk))).toBe(0);
  });

  it.each([
    ['another key', (pk: string) => JSON.stringify(entry(`${pk}-other`))],
    ['garbage', () => '{"pk":'],
    ['a truncated entry', (pk: string) => JSON.stringify(entry(pk)).slice(0, -3)],
    ['an expired entry', (pk: string) => JSON.stringify(entry(pk, { expiresAtEpochSeconds: 1_000 }))],
    ['an outcome that is not JSON', (pk: string) => JSON.stringify(entry(pk, { responseJson: '{"value":' }))],
    ['an outcome that is an array', (pk: string) => JSON.stringify(entry(pk, { responseJson: '[1]' }))],
    ['no fingerprint', (pk: string) => JSON.stringify({ ...entry(pk), fingerprint: '' })],
    ['a fractional expiry', (pk: string) => JSON.stringify(entry(pk, { expiresAtEpochSeconds: inAnHour() + 0.5 }))],
    ['an array', () => '[]'],
  ])('returns nothing for %s stored at the key', async (_, poison) => {
    const pk = `req#-#op#${randomUUID()}`;
    await raw.set(cache().keyOf(pk), poison(pk), 'PX', 60_000);
    expect(await cache().get(pk)).toBeUndefined();
  });

  it('returns only the four fields of an entry', async () => {
    const pk = `req#-#op#${randomUUID()}`;
    await raw.set(cache().keyOf(pk), JSON.stringify({ ...entry(pk), extra: 'x' }), 'PX', 60_000);
    expect(await cache().get(pk)).toEqual(entry(pk));
  });

  it('refuses a client without get and set, and a key prefix with braces', () => {
    expect(() => new ValkeyOutcomeCache({ client: {} as never })).toThrow(InvalidOptionsError);
    expect(() => new ValkeyOutcomeCache({ client: raw, keyPrefix: 'a{b}' })).toThrow(InvalidOptionsError);
    expect(() => new ValkeyOutcomeCache({ client: raw, maxEntryBytes: 0 })).toThrow(InvalidOptionsError);
  });
});

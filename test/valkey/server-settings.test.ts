import { randomUUID } from 'node:crypto';
import { InvalidOptionsError, JournalUnavailableError, RecordStatus } from '../../src/index.js';
import { ValkeyJournal, type ValkeyClient } from '../../src/entries/valkey.js';
import { startValkeyServer, type ValkeyServer } from '../support/valkey.js';

/*
 * What the journal reads of the server and asks of it: the eviction policy (reported, never a
 * crash), WAIT for replicas (a shortfall fails closed), and the server TTL that only reclaims memory.
 */
let server: ValkeyServer;
beforeAll(async () => {
  server = await startValkeyServer();
});
afterAll(() => server?.stop());

function warnings() {
  const messages: string[] = [];
  return { messages, logger: { warn: (message: string) => void messages.push(message) } };
}

describe('eviction policy', () => {
  afterEach(() => server.client().config('SET', 'maxmemory-policy', 'noeviction'));

  it('says nothing under noeviction', async () => {
    const { messages, logger } = warnings();
    const journal = new ValkeyJournal({ client: server.client(), logger });
    await journal.reserve({ pk: `req#-#op#${randomUUID()}`, fingerprint: 'f', leaseMs: 1_000, ttlSeconds: 60 });
    expect(await journal.evictionPolicy()).toEqual({ policy: 'noeviction', mayEvict: false });
    expect(messages).toEqual([]);
  });

  it('warns once, on first use, under a policy that may evict records, and works on', async () => {
    await server.client().config('SET', 'maxmemory-policy', 'allkeys-lru');
    const { messages, logger } = warnings();
    const journal = new ValkeyJournal({ client: server.client(), logger });
    const pk = `req#-#op#${randomUUID()}`;
    const { reserved } = await journal.reserve({ pk, fingerprint: 'f', leaseMs: 1_000, ttlSeconds: 60 });
    await journal.get(pk);

    expect(reserved).toBe(true);
    expect(await journal.evictionPolicy()).toEqual({ policy: 'allkeys-lru', mayEvict: true });
    expect(messages).toHaveLength(1);
    expect(messages[0]).toMatch(/maxmemory_policy allkeys-lru.*runs again/);
  });

  it('reports a server that does not answer INFO as one that may evict, and works on', async () => {
    const { messages, logger } = warnings();
    const inner = server.client();
    const client: ValkeyClient = {
      evalsha: (...args) => inner.evalsha(...args),
      eval: (...args) => inner.eval(...args),
      info: () => Promise.reject(new Error('ERR unknown command')),
    };
    const journal = new ValkeyJournal({ client, logger });
    await journal.reserve({ pk: `req#-#op#${randomUUID()}`, fingerprint: 'f', leaseMs: 1_000, ttlSeconds: 60 });
    expect(await journal.evictionPolicy()).toEqual({ policy: undefined, mayEvict: true });
    expect(messages).toHaveLength(1);
  });
});

describe('waitForReplicas', () => {
  const quiet = { warn: () => undefined };

  it('with 0 replicas asked, WAIT returns at once and every change lands', async () => {
    const journal = new ValkeyJournal({
      client: server.client(),
      logger: quiet,
      waitForReplicas: { replicas: 0, timeoutMs: 100 },
    });
    const pk = `req#-#op#${randomUUID()}`;
    const { record } = await journal.reserve({ pk, fingerprint: 'f', leaseMs: 1_000, ttlSeconds: 60 });
    await journal.complete({ pk, leaseToken: record.leaseToken, response: 'ok', ttlSeconds: 60 });
    expect((await journal.get(pk))?.status).toBe(RecordStatus.completed);
  });

  it('fails closed with JournalUnavailableError when fewer replicas acknowledged in time', async () => {
    const journal = new ValkeyJournal({
      client: server.client(),
      logger: quiet,
      waitForReplicas: { replicas: 1, timeoutMs: 20 },
    });
    const pk = `req#-#op#${randomUUID()}`;
    const error = await journal
      .reserve({ pk, fingerprint: 'f', leaseMs: 1_000, ttlSeconds: 60 })
      .catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(JournalUnavailableError);
    expect((error as Error).message).toMatch(/0 of 1 replicas/);
  });

  it('is refused for a client without wait() or a cluster client', () => {
    const inner = server.client();
    const base = { evalsha: inner.evalsha.bind(inner), eval: inner.eval.bind(inner), info: inner.info.bind(inner) };
    const waitForReplicas = { replicas: 1, timeoutMs: 10 };
    expect(() => new ValkeyJournal({ client: base, waitForReplicas })).toThrow(InvalidOptionsError);
    expect(
      () => new ValkeyJournal({ client: { ...base, wait: async () => 1, isCluster: true }, waitForReplicas }),
    ).toThrow(/cluster/);
  });
});

describe('server TTL', () => {
  const quiet = { warn: () => undefined };

  it('keeps a record at least an hour past its expiresAt, and drops the TTL once an effect begins', async () => {
    const client = server.client();
    const journal = new ValkeyJournal({ client, logger: quiet });
    const pk = `req#-#op#${randomUUID()}`;
    const { record } = await journal.reserve({ pk, fingerprint: 'f', leaseMs: 1_000, ttlSeconds: 60 });
    const ttlMs = await client.pttl(journal.keyOf(pk));
    expect(ttlMs).toBeGreaterThan(60 * 60 * 1000);
    expect(ttlMs).toBeLessThanOrEqual(61 * 60 * 1000 + 1000);
    await journal.beginEffect(pk, record.leaseToken, 'charge');
    expect(await client.pttl(journal.keyOf(pk))).toBe(-1);
  });

  it('reads expiry from the journal clock, never the server TTL: a record past expiresAt is claimable at once', async () => {
    let now = Date.now();
    const journal = new ValkeyJournal({ client: server.client(), logger: quiet, clock: () => now });
    const pk = `req#-#op#${randomUUID()}`;
    const { record } = await journal.reserve({ pk, fingerprint: 'f', leaseMs: 1_000, ttlSeconds: 1 });
    await journal.complete({ pk, leaseToken: record.leaseToken, response: 'ok', ttlSeconds: 1 });
    now += 2_000;
    const again = await journal.reserve({ pk, fingerprint: 'f', leaseMs: 1_000, ttlSeconds: 60 });
    expect(again).toMatchObject({ reserved: true, replacedExpired: true });
  });
});

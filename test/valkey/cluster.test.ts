import { ValkeyJournal, ValkeyOutcomeCache } from '../../src/entries/valkey.js';
import { journalConformance } from '../../src/journal/conformance/index.js';
import { LUA_SCRIPTS } from '../../src/valkey/index.js';
import { startValkeyCluster, type ValkeyCluster } from '../support/valkey.js';

/*
 * Cluster mode. The keys of a hash slot live on one node of three, and a node refuses a script
 * that touches a key it does not own: the whole conformance suite on a cluster client shows that
 * every script keeps to the one key (one slot) it declares, whatever the records and claims are.
 * And by hash slot (CRC16, as the cluster computes it): a key's slot is its hash tag's, never the
 * record key's text, so a key holding braces of its own stays in the journal's slot.
 */
let cluster: ValkeyCluster;
let client: ReturnType<ValkeyCluster['client']>;
beforeAll(async () => {
  cluster = await startValkeyCluster();
  client = cluster.client();
}, 60_000);
afterAll(() => cluster?.stop());

const quiet = { warn: () => undefined };
journalConformance(({ clock }) => new ValkeyJournal({ client, clock, logger: quiet }), {
  describe,
  it,
  name: 'ValkeyJournal conformance on a three-node cluster',
  sharedStorage: true,
  transactions: false,
});

/** CRC16/XMODEM, the hash the cluster maps keys to slots with. */
function crc16(text: string): number {
  let crc = 0;
  for (const byte of Buffer.from(text, 'utf8')) {
    crc ^= byte << 8;
    for (let bit = 0; bit < 8; bit++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc;
}

/** The slot of a key: of its hash tag (the text between the first `{` and the next `}`, when not empty), else of it. */
function slotOf(key: string): number {
  const open = key.indexOf('{');
  const close = open < 0 ? -1 : key.indexOf('}', open + 1);
  const hashed = open >= 0 && close > open + 1 ? key.slice(open + 1, close) : key;
  return crc16(hashed) % 16384;
}

describe('hash slots', () => {
  it('computes slots as the cluster does', async () => {
    for (const key of ['a', 'idemkit:{abc}req#x', 'foo{}{bar}', `{user1000}.following`])
      expect(slotOf(key)).toBe(await client.cluster('KEYSLOT', key));
  });

  it("puts a key in its own tag's slot whatever braces its record key holds", async () => {
    const journal = new ValkeyJournal({ client, logger: quiet, keyPrefix: 'app:' });
    for (const pk of ['req#-#op#k', 'req#-#op#{k}', 'req#{t}#op#}{', 'uniq#email#a@b', 'msg#c#{m}']) {
      const key = journal.keyOf(pk);
      const tag = /^app:\{([0-9a-f]{16})\}/.exec(key)?.[1];
      expect(tag).toBeDefined();
      expect(slotOf(key)).toBe(crc16(tag!) % 16384);
      expect(slotOf(key)).toBe(await client.cluster('KEYSLOT', key));
    }
  });

  it('has every script touch only the one key it declares', () => {
    for (const script of Object.values(LUA_SCRIPTS)) {
      const calls = [...script.source.matchAll(/redis\.call\('([A-Z]+)',\s*([^,)]+)/g)];
      expect(calls.length).toBeGreaterThan(0);
      for (const [, , keyArgument] of calls) expect(keyArgument).toBe('key');
      expect(script.source).toContain('local key = KEYS[1]');
      expect(script.source).not.toMatch(/KEYS\[[2-9]\]/);
    }
  });
});

describe('ValkeyOutcomeCache on the cluster', () => {
  const entry = (pk: string) => ({
    pk,
    fingerprint: 'a'.repeat(64),
    expiresAtEpochSeconds: Math.floor(Date.now() / 1000) + 3600,
    responseJson: '{"value":{"statusCode":201}}',
  });

  it("keys every entry by its own tag's slot, whatever braces the record key holds, and serves it", async () => {
    const cache = new ValkeyOutcomeCache({ client, keyPrefix: 'app:' });
    const pks = ['req#-#op#{k}#1', 'req#-#op#{k}#2', 'req#{t}#op#}{', 'msg#c#{m}', 'req#-#op#plain'];
    for (const pk of pks) {
      const key = cache.keyOf(pk);
      const tag = /^app:\{([0-9a-f]{16})\}outcome#/.exec(key)?.[1];
      expect(tag).toBeDefined();
      expect(await client.cluster('KEYSLOT', key)).toBe(crc16(tag!) % 16384);
      await cache.set(pk, entry(pk), 60_000);
      expect(await cache.get(pk)).toEqual(entry(pk));
    }
    // Record keys sharing a brace group of their own still spread: the slot is the cache's tag's, not theirs.
    expect(slotOf(cache.keyOf(pks[0]))).not.toBe(slotOf(cache.keyOf(pks[1])));
  });

  it("never writes at a journal record's key, even under the journal's own prefix", () => {
    const journal = new ValkeyJournal({ client, logger: quiet, keyPrefix: 'app:' });
    const cache = new ValkeyOutcomeCache({ client, keyPrefix: 'app:' });
    for (const pk of ['req#-#op#k', 'outcome#req#-#op#k', 'msg#c#m'])
      expect(cache.keyOf(pk)).not.toBe(journal.keyOf(pk));
  });
});

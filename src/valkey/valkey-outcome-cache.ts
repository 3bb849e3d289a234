import {
  assertKnownOptions,
  InvalidOptionsError,
  readFunction,
  readNumber,
  readString,
  sha256Hex,
} from '../core/index.js';
import type { CachedOutcome, OutcomeCache } from '../engine/index.js';
import { isExpired } from '../journal/index.js';
import type { ValkeyCacheClient } from './valkey-client.js';

const OWNER = 'ValkeyOutcomeCache';

/** The largest entry a {@link ValkeyOutcomeCache} stores unless told otherwise, in bytes of its JSON. */
export const DEFAULT_MAX_ENTRY_BYTES = 64 * 1024;

/** What comes between the hash tag and the record key, so a cache key is never a journal record's key. */
const KEY_MARK = 'outcome#';

/** Options of {@link ValkeyOutcomeCache}. */
export interface ValkeyOutcomeCacheOptions {
  /** An `iovalkey`/`ioredis` `Redis` or `Cluster` (a `ValkeyJournal`'s own client will do), or any client of the {@link ValkeyCacheClient} shape. */
  readonly client: ValkeyCacheClient;
  /**
   * Prefix of every key the cache writes (`<prefix>{<tag>}outcome#<pk>`). No `{` or `}`: the hash tag is the cache's.
   * @default 'idemkit:cache:'
   */
  readonly keyPrefix?: string;
  /**
   * Largest entry stored, in bytes of its JSON: a larger outcome is not cached (its replays ask the journal), never
   * stored in part.
   * @default 65536
   */
  readonly maxEntryBytes?: number;
  /**
   * Longest wait for a `GET`, in milliseconds, before the guard asks the journal instead.
   * @default 50 (the guard's default)
   */
  readonly timeoutMs?: number;
  /**
   * Epoch milliseconds now: an entry past its expiry is neither returned nor stored.
   * @default Date.now
   */
  readonly clock?: () => number;
}

/**
 * Completed outcomes in Valkey or Redis (ElastiCache, MemoryDB, a server of your own), shared by every container: a
 * replay any container completed costs one `GET` instead of a journal call. The `outcomeCache` of any guard, with a
 * `DynamoDBJournal` (records in DynamoDB, replays from ElastiCache) or a `ValkeyJournal` (over the same client).
 *
 * Each entry is the documented `CachedOutcome` JSON under `<prefix>{<tag>}outcome#<pk>` (the tag hashes the record
 * key, so every key, braces and all, has a slot of its own in a cluster and never shares a journal record's key),
 * stored with `SET … PX` until the record's expiry. An entry larger than `maxEntryBytes` is not stored. A server
 * error, a missing entry, or a stored value that is not a whole entry of the key asked for is a miss: the guard then
 * asks the journal, and checks the fingerprint and expiry of every entry it is given before it replays.
 *
 * @example
 * import { Valkey } from 'iovalkey';
 * import { ValkeyOutcomeCache } from 'idemkit/valkey';
 * const outcomeCache = new ValkeyOutcomeCache({ client: new Valkey(process.env.VALKEY_URL!) });
 * export const handler = middy(createOrder).use(httpIdempotency({ journal, outcomeCache }));
 */
export class ValkeyOutcomeCache implements OutcomeCache {
  readonly timeoutMs?: number;
  private readonly client: ValkeyCacheClient;
  private readonly prefix: string;
  private readonly maxEntryBytes: number;
  private readonly clock: () => number;

  constructor(options: ValkeyOutcomeCacheOptions) {
    assertKnownOptions(OWNER, options, [
      'client',
      'keyPrefix',
      'maxEntryBytes',
      'timeoutMs',
      'clock',
    ] as const satisfies readonly (keyof ValkeyOutcomeCacheOptions)[]);
    const client = options?.client as Partial<ValkeyCacheClient> | undefined;
    if (typeof client?.get !== 'function' || typeof client.set !== 'function')
      throw new InvalidOptionsError(
        `${OWNER}: option 'client' must be an iovalkey/ioredis client or cluster, or an adapter with get and set`,
      );
    this.client = options.client;
    this.prefix = readString(OWNER, 'keyPrefix', options.keyPrefix, 'idemkit:cache:');
    if (/[{}]/.test(this.prefix))
      throw new InvalidOptionsError(`${OWNER}: option 'keyPrefix' must not contain '{' or '}' (the cache's hash tag)`);
    this.maxEntryBytes = readNumber(OWNER, 'maxEntryBytes', options.maxEntryBytes, DEFAULT_MAX_ENTRY_BYTES, {
      min: 1,
      integer: true,
    });
    this.timeoutMs = readNumber(OWNER, 'timeoutMs', options.timeoutMs, undefined, { min: 1, integer: true });
    this.clock = readFunction(OWNER, 'clock', options.clock, Date.now);
  }

  /** The key of the entry of record `pk`: a hash tag of its own, so whatever `pk` holds, the key stays in one slot. */
  keyOf(pk: string): string {
    return `${this.prefix}{${sha256Hex(pk).slice(0, 16)}}${KEY_MARK}${pk}`;
  }

  /** The entry of `pk`, or undefined: none, a server error, or a stored value that is not a whole, live entry of `pk`. */
  async get(pk: string): Promise<CachedOutcome | undefined> {
    let stored: unknown;
    try {
      stored = await this.client.get(this.keyOf(pk));
    } catch {
      return undefined;
    }
    if (typeof stored !== 'string') return undefined;
    const entry = entryOf(stored);
    if (!entry || entry.pk !== pk || isExpired(entry.expiresAtEpochSeconds, this.clock())) return undefined;
    return entry;
  }

  /**
   * Stores `entry` until its record's expiry (never past `ttlMs`). Nothing is stored for an entry of another key, an
   * expired one, or one larger than `maxEntryBytes`. Never rejects: an entry not stored costs its replays a journal
   * call.
   */
  async set(pk: string, entry: CachedOutcome, ttlMs: number): Promise<void> {
    const checked = entryOf(JSON.stringify(entry));
    if (!checked || checked.pk !== pk) return;
    const untilExpiryMs = checked.expiresAtEpochSeconds * 1000 - this.clock();
    const pxMs = Math.ceil(Number.isFinite(ttlMs) && ttlMs > 0 ? Math.min(ttlMs, untilExpiryMs) : untilExpiryMs);
    if (!(pxMs > 0)) return;
    const json = JSON.stringify(checked);
    if (Buffer.byteLength(json, 'utf8') > this.maxEntryBytes) return;
    try {
      await this.client.set(this.keyOf(pk), json, 'PX', pxMs);
    } catch {
      // A server that refuses the write: later replays ask the journal.
    }
  }
}

/**
 * The entry `json` holds, rebuilt from its four fields, or undefined unless it is exactly one: an object whose `pk`
 * and `fingerprint` are non-empty strings, whose `expiresAtEpochSeconds` is a whole number, and whose `responseJson`
 * is JSON text of an object (the stored outcome, `{"value": …}` or `{}`).
 */
function entryOf(json: string): CachedOutcome | undefined {
  try {
    const value = JSON.parse(json) as unknown;
    if (!isObject(value)) return undefined;
    const { pk, fingerprint, expiresAtEpochSeconds, responseJson } = value;
    if (typeof pk !== 'string' || pk.length === 0) return undefined;
    if (typeof fingerprint !== 'string' || fingerprint.length === 0) return undefined;
    if (typeof expiresAtEpochSeconds !== 'number' || !Number.isSafeInteger(expiresAtEpochSeconds)) return undefined;
    if (typeof responseJson !== 'string' || !isObject(JSON.parse(responseJson))) return undefined;
    return { pk, fingerprint, expiresAtEpochSeconds, responseJson };
  } catch {
    return undefined;
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

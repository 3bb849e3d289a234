import { LRUCache } from '@aws-lambda-powertools/commons/utils/lru-cache';
import { isExpired } from '../journal/index.js';

/**
 * A completed outcome as an {@link OutcomeCache} keeps it. It is plain JSON, so a shared cache stores
 * `JSON.stringify(entry)` as it is (a Valkey cache: `SET <prefix><pk> <json> PX <ttlMs>`, then `GET` and `JSON.parse`):
 *
 * ```json
 * { "pk": "req#tenant#POST /payments#k-1", "fingerprint": "9f2c…", "expiresAtEpochSeconds": 1767312000,
 *   "responseJson": "{\"value\":{\"statusCode\":201,\"body\":\"…\"}}" }
 * ```
 *
 * The guard checks every entry against the request before it replays: an entry of another `pk`, another
 * `fingerprint`, past `expiresAtEpochSeconds`, or whose `responseJson` is not a stored outcome is a miss, and the
 * journal answers.
 */
export interface CachedOutcome {
  /** The record's key (`req#…` or `msg#…`), tenant and scope included. */
  readonly pk: string;
  /** The fingerprint of the request the record completed. */
  readonly fingerprint: string;
  /** When the record stops being replayed, in epoch seconds. */
  readonly expiresAtEpochSeconds: number;
  /** The stored outcome as JSON text (`{"value": …}`): each replay parses its own copy, as a replay from the journal. */
  readonly responseJson: string;
}

/**
 * Where a guard keeps completed outcomes besides the journal, so a replay can skip the journal call (option
 * `outcomeCache`). A cache is only ever asked for an outcome the journal completed, and never whether a key is new:
 * a miss, an error, an answer slower than `timeoutMs`, or an entry that does not match the request costs a journal
 * call, never a wrong answer, and never fails the request. {@link MemoryOutcomeCache} keeps them in the container; a
 * shared cache (Valkey, Redis) serves every container.
 *
 * @example
 * const cache: OutcomeCache = {
 *   timeoutMs: 20,
 *   get: async (pk) => { const json = await valkey.get(`outcome:${pk}`); return json ? JSON.parse(json) : undefined; },
 *   set: async (pk, entry, ttlMs) => { await valkey.set(`outcome:${pk}`, JSON.stringify(entry), 'PX', ttlMs); },
 * };
 * httpIdempotency({ journal, outcomeCache: cache });
 */
export interface OutcomeCache {
  /** The entry kept for `pk`, if any. */
  get(pk: string): Promise<CachedOutcome | undefined>;
  /** Keeps `entry` for `pk` for `ttlMs` milliseconds (until the record stops being replayed). Not awaited by replays. */
  set(pk: string, entry: CachedOutcome, ttlMs: number): Promise<void>;
  /**
   * Longest wait for `get`, in milliseconds: a slower answer is a miss and the journal answers.
   * @default 50
   */
  readonly timeoutMs?: number;
}

/** What the guard's settings give the cache helpers (a guard's `EngineSettings` is one). */
interface CacheSettings {
  readonly outcomeCache?: OutcomeCache;
  readonly clock: () => number;
}

/** How long the guard waits for an {@link OutcomeCache}'s `get` unless the cache says otherwise. */
export const DEFAULT_OUTCOME_CACHE_TIMEOUT_MS = 50;

/** Options of {@link MemoryOutcomeCache}. */
export interface MemoryOutcomeCacheOptions {
  /** Entries kept; the least recently used goes first. */
  readonly maxItems: number;
}

/**
 * Completed outcomes kept in the container (an LRU), so a replay in a warm container costs no journal call. What the
 * `localCache: { maxItems }` option builds.
 *
 * @example
 * httpIdempotency({ journal, outcomeCache: new MemoryOutcomeCache({ maxItems: 1000 }) });
 */
export class MemoryOutcomeCache implements OutcomeCache {
  private readonly lru: LRUCache<string, CachedOutcome>;

  constructor(options: MemoryOutcomeCacheOptions) {
    this.lru = new LRUCache({ maxSize: options.maxItems });
  }

  get(pk: string): Promise<CachedOutcome | undefined> {
    return Promise.resolve(this.lru.get(pk));
  }

  set(pk: string, entry: CachedOutcome): Promise<void> {
    this.lru.add(pk, entry);
    return Promise.resolve();
  }
}

/**
 * The stored outcome the cache holds for this request, or undefined when the journal must answer: no cache, a miss,
 * an error, no answer within the bound, or an entry that is not this record's (another key, another fingerprint,
 * expired, unreadable).
 */
export async function cachedReplayOf(
  settings: CacheSettings,
  pk: string,
  fingerprint: string,
): Promise<{ readonly value: unknown } | undefined> {
  const cache = settings.outcomeCache;
  if (!cache) return undefined;
  let entry: unknown;
  try {
    entry = await within(cache.timeoutMs ?? DEFAULT_OUTCOME_CACHE_TIMEOUT_MS, () => cache.get(pk));
  } catch {
    return undefined;
  }
  const found = entry as Partial<CachedOutcome> | null | undefined;
  if (typeof found !== 'object' || found === null) return undefined;
  // Only the journal says a key is new or was used with another request: a cache only replays what matches.
  if (found.pk !== pk || found.fingerprint !== fingerprint || typeof found.responseJson !== 'string') return undefined;
  if (typeof found.expiresAtEpochSeconds !== 'number' || isExpired(found.expiresAtEpochSeconds, settings.clock()))
    return undefined;
  try {
    const stored = JSON.parse(found.responseJson) as unknown;
    // `{}` is the stored form of an outcome without a value (a queue record's handler returns nothing).
    if (typeof stored !== 'object' || stored === null || Array.isArray(stored)) return undefined;
    return { value: (stored as { value?: unknown }).value };
  } catch {
    return undefined;
  }
}

/**
 * Keeps a completed record's outcome in the cache, without waiting for it: a cache that fails or hangs only costs
 * later replays a journal call.
 */
export function rememberOutcome(
  settings: CacheSettings,
  record: {
    readonly pk: string;
    readonly fingerprint: string;
    readonly response?: { readonly value: unknown };
    readonly expiresAtEpochSeconds?: number;
  },
): void {
  const cache = settings.outcomeCache;
  const { response, expiresAtEpochSeconds } = record;
  if (!cache || !response || expiresAtEpochSeconds === undefined) return;
  const ttlMs = expiresAtEpochSeconds * 1000 - settings.clock();
  if (ttlMs <= 0) return;
  try {
    const entry: CachedOutcome = {
      pk: record.pk,
      fingerprint: record.fingerprint,
      expiresAtEpochSeconds,
      responseJson: JSON.stringify(response),
    };
    cache.set(record.pk, entry, ttlMs).catch(() => undefined);
  } catch {
    // A cache that throws before it returns a promise is a cache that is down: the journal keeps the outcome.
  }
}

/** `call()`'s answer, or a rejection once `timeoutMs` passed without one. */
function within<T>(timeoutMs: number, call: () => Promise<T>): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
    timer.unref?.();
  });
  return Promise.race([Promise.resolve().then(call), late]).finally(() => clearTimeout(timer));
}

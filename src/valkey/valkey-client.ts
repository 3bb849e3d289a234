/**
 * What the Valkey journal needs of a client, typed by shape so that neither `iovalkey` nor
 * `ioredis` is needed to compile against `idemkit/valkey`: an `iovalkey` or `ioredis` `Redis` or
 * `Cluster` is one as it is. Another client (`@redis/client`, GLIDE) fits through a few lines of
 * adapter (docs/valkey.md shows one): each method sends the one command it is named after, with
 * every argument as given, and resolves with the server's reply (a Lua table as an array of
 * strings) or rejects with the server's error. The journal checks every reply: an adapter that
 * drops an argument or a reply makes the journal refuse, never run a handler twice.
 *
 * @example
 * import { Valkey } from 'iovalkey';
 * const journal = new ValkeyJournal({ client: new Valkey(process.env.VALKEY_URL!) });
 */
export interface ValkeyClient {
  /** `EVALSHA sha1 numKeys ...keys ...args`. */
  evalsha(sha1: string, numKeys: number, ...keysAndArgs: string[]): Promise<unknown>;
  /** `EVAL script numKeys ...keys ...args` (after `NOSCRIPT`: the server then caches the script). */
  eval(script: string, numKeys: number, ...keysAndArgs: string[]): Promise<unknown>;
  /** `INFO section`: read once, for the `maxmemory_policy`. */
  info(section: string): Promise<string>;
  /** `WAIT replicas timeoutMs`: needed only with the journal's `waitForReplicas` option. */
  wait?(replicas: number, timeoutMs: number): Promise<number>;
  /** True for a cluster client (`iovalkey`/`ioredis` `Cluster`), whose `WAIT` cannot reach the node a write went to. */
  readonly isCluster?: boolean;
}

/**
 * What `ValkeyOutcomeCache` needs of a client: `GET`, and `SET` with `PX`. An `iovalkey` or
 * `ioredis` `Redis` or `Cluster` is one as it is, so the journal's client (or any other) serves both;
 * another client fits through two lines of adapter. Each method sends the one command it is named after
 * and resolves with the server's reply or rejects with its error; the cache checks every reply.
 */
export interface ValkeyCacheClient {
  /** `GET key`: the value, or null when there is none. */
  get(key: string): Promise<string | null>;
  /** `SET key value PX ttlMs`. */
  set(key: string, value: string, expiryMode: 'PX', ttlMs: number): Promise<unknown>;
}

import { InvalidOptionsError } from '../errors/index.js';
import type { Journal } from '../journal/index.js';
import type { TelemetryOptions } from '../telemetry/index.js';
import type { RecoveryDecision, EngineSettings } from './engine.js';
import { LocalCache } from './local-cache.js';
import type { IdempotencyScope } from './scope.js';

/** Options every guarded entry point accepts (HTTP middleware, function wrapper, SQS consumer). */
export interface GuardOptions extends TelemetryOptions {
  /** Where records live: a `DynamoDBJournal` in Lambda, a `MemoryJournal` in unit tests. */
  readonly journal: Journal;
  /**
   * How long a completed outcome is replayed, in seconds.
   * @default 86400
   */
  readonly ttlSeconds?: number;
  /**
   * Lease of an attempt, in milliseconds.
   * @default the Lambda's remaining time + 1000 (30000 without a context)
   */
  readonly leaseMs?: number;
  /**
   * What a duplicate meets while the first attempt holds its lease: `reject` answers at once,
   * `wait` polls until the outcome is stored (bounded by `waitMs` and the Lambda's remaining time).
   * @default 'reject'
   */
  readonly inProgress?: 'reject' | 'wait';
  /**
   * Longest wait of the `wait` policy, in milliseconds.
   * @default 5000
   */
  readonly waitMs?: number;
  /**
   * `Retry-After` sent with an in-progress answer, in seconds.
   * @default 1
   */
  readonly retryAfterSeconds?: number;
  /** Decides what to do when a retry finds that an earlier attempt began its effect and vanished. */
  readonly recover?: (scope: IdempotencyScope) => Promise<RecoveryDecision>;
  /**
   * Keeps completed outcomes in the container, so warm replays cost no DynamoDB call.
   * @default undefined (off)
   */
  readonly localCache?: { readonly maxItems: number };
  /**
   * What the handler's effects are. `'any'` (the leased protocol): the key is reserved before
   * the handler runs, and the handler may call anything (mark external effects with
   * `beginEffect`). `'staged-only'`: the handler changes nothing but DynamoDB items, all
   * queued with `stage`, `publish` and `claimUnique`; it runs first, and one
   * `TransactWriteItems` commits its writes with the outcome and claims the key — a new key
   * costs one DynamoDB call, and concurrent duplicates get the winner's outcome instead of 409.
   * The handler may run more than once (only one run commits); `beginEffect`,
   * `recordEvidence` and `heartbeat` reject with `StagedOnlyError`.
   * @default 'any'
   * @example httpIdempotency({ journal, effects: 'staged-only' })
   */
  readonly effects?: 'any' | 'staged-only';
  /**
   * Epoch milliseconds now, for lease and expiry decisions.
   * @default Date.now
   */
  readonly clock?: () => number;
}

/** Names of {@link GuardOptions}, for unknown-option checks. */
export const GUARD_OPTION_NAMES = ['journal', 'ttlSeconds', 'leaseMs', 'inProgress', 'waitMs', 'retryAfterSeconds', 'recover', 'localCache', 'effects', 'clock', 'metrics', 'logger', 'namespace'] as const;

/** Throws when `options` is not an object or holds a name outside `allowed`, naming it. */
export function rejectUnknownOptions(factory: string, options: unknown, allowed: readonly string[]): void {
  if (!options || typeof options !== 'object') throw new InvalidOptionsError(`${factory}: options must be an object`);
  const unknown = Object.keys(options).filter((name) => !allowed.includes(name));
  if (unknown.length > 0) throw new InvalidOptionsError(`${factory}: unknown option ${unknown.map((name) => `'${name}'`).join(', ')}`);
}

/** Throws unless `value` is undefined or a finite number within `[min, max]`. */
export function checkNumber(factory: string, name: string, value: unknown, min: number, max = Number.MAX_SAFE_INTEGER): void {
  if (value === undefined) return;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < min || value > max) {
    throw new InvalidOptionsError(`${factory}: '${name}' must be a number between ${min} and ${max}, got ${String(value)}`);
  }
}

/** Throws unless `value` is undefined or a function. */
export function checkFunction(factory: string, name: string, value: unknown): void {
  if (value !== undefined && typeof value !== 'function') throw new InvalidOptionsError(`${factory}: '${name}' must be a function`);
}

/** Validates the shared options and resolves them into engine settings. */
export function resolveGuardOptions(factory: string, options: GuardOptions): EngineSettings {
  const journal = options.journal as Partial<Journal> | undefined;
  if (!journal || typeof journal.reserve !== 'function' || typeof journal.complete !== 'function') {
    throw new InvalidOptionsError(`${factory}: 'journal' must be a DynamoDBJournal or MemoryJournal`);
  }
  checkNumber(factory, 'ttlSeconds', options.ttlSeconds, 1);
  checkNumber(factory, 'leaseMs', options.leaseMs, 1);
  checkNumber(factory, 'waitMs', options.waitMs, 0);
  checkNumber(factory, 'retryAfterSeconds', options.retryAfterSeconds, 0);
  checkNumber(factory, 'localCache.maxItems', options.localCache?.maxItems, 1);
  if (options.localCache !== undefined && options.localCache.maxItems === undefined) {
    throw new InvalidOptionsError(`${factory}: 'localCache' needs maxItems`);
  }
  if (options.inProgress !== undefined && options.inProgress !== 'reject' && options.inProgress !== 'wait') {
    throw new InvalidOptionsError(`${factory}: 'inProgress' must be 'reject' or 'wait'`);
  }
  if (options.namespace !== undefined && (typeof options.namespace !== 'string' || options.namespace.length === 0)) {
    throw new InvalidOptionsError(`${factory}: 'namespace' must be a non-empty string`);
  }
  if (options.effects !== undefined && options.effects !== 'any' && options.effects !== 'staged-only') {
    throw new InvalidOptionsError(`${factory}: 'effects' must be 'any' or 'staged-only'`);
  }
  if (options.effects === 'staged-only' && options.recover !== undefined) {
    // No attempt holds a lease or begins an effect in that mode, so the hook could never be asked.
    throw new InvalidOptionsError(`${factory}: 'recover' does not apply with effects: 'staged-only'`);
  }
  checkFunction(factory, 'recover', options.recover);
  checkFunction(factory, 'clock', options.clock);
  return {
    journal: options.journal,
    ttlSeconds: options.ttlSeconds ?? 86_400,
    leaseMs: options.leaseMs,
    inProgress: options.inProgress ?? 'reject',
    waitMs: options.waitMs ?? 5_000,
    retryAfterSeconds: options.retryAfterSeconds ?? 1,
    recover: options.recover,
    localCache: options.localCache ? new LocalCache(options.localCache.maxItems) : undefined,
    effects: options.effects ?? 'any',
    clock: options.clock ?? Date.now,
    sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  };
}

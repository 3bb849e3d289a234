import {
  assertKnownOptions,
  InvalidOptionsError,
  readFunction,
  readNumber,
  readOneOf,
  readString,
} from '../core/index.js';
import type { Journal } from '../journal/index.js';
import { assertJournalOffers } from './journal-features.js';
import type { TelemetryOptions, TracerLike } from '../telemetry/index.js';
import { MAX_DURABLE_EXECUTION_TIMEOUT_SECONDS } from './durable-execution.js';
import { MemoryOutcomeCache, type OutcomeCache } from './outcome-cache.js';
import type { IdempotencyScope } from './scope.js';

/** What a `recover` hook decides for a record whose effect may have happened. */
export type RecoveryDecision =
  { outcome: 'completed'; response: unknown } | { outcome: 'rerun' } | { outcome: 'review' };

/**
 * What the previous idempotency library holds for a request: a completed outcome to replay, a
 * live execution, a record for another payload, or nothing that stops the handler (`reason` says why).
 */
export type LegacyDecision =
  | { readonly kind: 'replay'; readonly response: unknown }
  | { readonly kind: 'in-progress' }
  | { readonly kind: 'mismatch' }
  | {
      readonly kind: 'none';
      readonly reason: 'absent' | 'expired' | 'in-progress-expired' | 'no-key' | 'window-closed';
    };

/**
 * Reads the previous library's record for the event its key derivation reads (the raw Lambda
 * event, or the function's input); calls `countCall` once per storage call it makes.
 */
export type LegacyLookup = (legacyEvent: unknown, countCall: () => void) => Promise<LegacyDecision>;

/**
 * The records of the idempotency library a guard replaces, read while the cut-over lasts (the
 * `migrateFrom` option of `httpIdempotency` and `makeIdempotent`). `fromPowertools(...)`, from
 * `idemkit/migration`, builds one; a guard without a migration never loads that code.
 *
 * @example
 * import { fromPowertools } from 'idemkit/migration';
 * httpIdempotency({ journal, migrateFrom: fromPowertools({ tableName: 'IdempotencyTable', keyPrefix: 'create-payment', eventKeyJmesPath: 'body' }) });
 */
export interface MigrationSource {
  /**
   * Builds the guard's lookup, once, when its factory is called (`factory` names it in errors).
   * Called by the guard, never by a user: the source is an opaque handle to them.
   *
   * @internal
   * @throws InvalidOptionsError when the guard's settings exclude the migration (`effects: 'staged-only'`)
   */
  lookupFor(factory: string, settings: Pick<EngineSettings, 'clock' | 'effects'>): LegacyLookup;
}

/**
 * The lookup of a `migrateFrom` option, built when the factory is called; undefined without one.
 *
 * @throws InvalidOptionsError for a value that is no {@link MigrationSource} (the 0.1 form `{ powertools: {...} }` says how
 *   to write it now)
 */
export function legacyLookupOf(
  factory: string,
  migrateFrom: unknown,
  settings: Pick<EngineSettings, 'clock' | 'effects'>,
): LegacyLookup | undefined {
  if (migrateFrom === undefined) return undefined;
  const source = migrateFrom as Partial<MigrationSource> | null;
  if (typeof source === 'object' && source !== null && typeof source.lookupFor === 'function')
    return source.lookupFor(factory, settings);
  const older = typeof source === 'object' && source !== null && 'powertools' in source;
  throw new InvalidOptionsError(
    older
      ? `${factory}: option 'migrateFrom' takes fromPowertools({ ... }) from 'idemkit/migration': write migrateFrom: fromPowertools(options) for migrateFrom: { powertools: options }`
      : `${factory}: option 'migrateFrom' must be built by fromPowertools({ ... }) from 'idemkit/migration'`,
  );
}

/** What an attempt's handler produced, as the entry point wants it kept. */
export interface HandlerOutcome {
  /** False for an error outcome that must not be replayed (5xx, 408, 429): the record is released. */
  readonly store: boolean;
  /** The outcome in the form that is stored and replayed. */
  readonly response: unknown;
  /**
   * What the first caller gets when this attempt ran (an HTTP response as the handler shaped it).
   * @default `response`
   */
  readonly answer?: unknown;
}

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
   * `Retry-After` sent with an in-progress answer, in whole seconds (RFC 9110 delta-seconds: a
   * fraction is refused when the guard is created).
   * @default 1
   */
  readonly retryAfterSeconds?: number;
  /**
   * Decides what to do when a retry finds that an earlier attempt began its effect and vanished.
   * @default undefined (such records become `UNKNOWN` and answer `needs-review`)
   * @example
   * recover: async (scope) => (await rail.find(scope.deriveKey('charge')))
   *   ? { outcome: 'completed', response: { statusCode: 201, body: '...' } }
   *   : { outcome: 'rerun' }
   */
  readonly recover?: (scope: IdempotencyScope) => Promise<RecoveryDecision>;
  /**
   * Keeps completed outcomes in the container, so warm replays cost no DynamoDB call: shorthand for
   * `outcomeCache: new MemoryOutcomeCache({ maxItems })`.
   * @default undefined (off)
   */
  readonly localCache?: { readonly maxItems: number };
  /**
   * Where completed outcomes are kept besides the journal, so a replay can skip the journal call: a
   * `MemoryOutcomeCache` in the container, or a shared cache every container reads. Only a completed outcome of the
   * same key and fingerprint is ever replayed from it; a miss, an error or a slow answer costs a journal call.
   * Not with `localCache`.
   * @default undefined (off)
   * @example httpIdempotency({ journal, outcomeCache: new MemoryOutcomeCache({ maxItems: 1000 }) })
   */
  readonly outcomeCache?: OutcomeCache;
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
   * The `ExecutionTimeout` of the Lambda durable function this guard runs in, in seconds: the
   * lease of a durable execution's record lasts this long (plus a grace second), so a duplicate
   * arriving during a long wait is refused as in progress, never let take over. Nothing in the
   * durable context gives the configured timeout; set it to the function's. Ignored outside a
   * durable execution (there `leaseMs` applies).
   * @default 31622400 (366 days, Lambda's maximum: never shorter than any execution)
   * @example makeIdempotent(workflow, { journal, operation: 'fulfil', key, durableExecutionTimeoutSeconds: 86_400 })
   */
  readonly durableExecutionTimeoutSeconds?: number;
  /**
   * Epoch milliseconds now, for lease and expiry decisions.
   * @default Date.now
   */
  readonly clock?: () => number;
}

/** Settings every attempt of one guard shares, resolved once from its options. */
export interface EngineSettings {
  readonly journal: Journal;
  readonly ttlSeconds: number;
  /** Undefined: the lease follows the Lambda's remaining time. */
  readonly leaseMs?: number;
  readonly inProgress: 'reject' | 'wait';
  readonly waitMs: number;
  readonly retryAfterSeconds: number;
  readonly recover?: (scope: IdempotencyScope) => Promise<RecoveryDecision>;
  /**
   * What an entry point stores of a response a `recover` hook or the previous library hands
   * back (HTTP keeps only allow-listed headers; the function wrapper its JSON round trip).
   * @default the response as it is
   */
  readonly storedFormOf: (response: unknown) => unknown;
  /**
   * What of a handler's result is stored, and whether it is stored at all (HTTP: not a 5xx, 408
   * or 429). May throw `ResponseNotSerializableError`: the record then completes without it.
   * @default the result as it is, always stored
   */
  readonly outcomeOf: (result: unknown) => HandlerOutcome;
  /**
   * Checks a stored outcome before the entry point answers with it (HTTP: a response with a
   * status code), so a record that does not hold one is refused, not replayed.
   * @throws RecordUnreadableError
   * @default accepts every outcome
   */
  readonly assertReplayable?: (response: unknown, pk: string) => void;
  /** Completed outcomes kept besides the journal (`outcomeCache`, or the `localCache` shorthand). */
  readonly outcomeCache?: OutcomeCache;
  /**
   * `'staged-only'`: the key is claimed by the transaction that commits the handler's writes (see
   * `GuardOptions.effects`).
   */
  readonly effects: 'any' | 'staged-only';
  /** The lease of a durable execution's record, in seconds (see `GuardOptions.durableExecutionTimeoutSeconds`). */
  readonly durableExecutionTimeoutSeconds: number;
  /**
   * During a migration, reads what the previous idempotency library holds for a request whose key was just reserved.
   */
  readonly legacyLookup?: LegacyLookup;
  readonly tracer?: TracerLike;
  readonly clock: () => number;
  readonly sleep: (ms: number) => Promise<void>;
}

/** Defaults of {@link GuardOptions}. */
export const DEFAULT_GUARD_OPTIONS = Object.freeze({
  ttlSeconds: 86_400,
  inProgress: 'reject',
  waitMs: 5_000,
  retryAfterSeconds: 1,
  effects: 'any',
  durableExecutionTimeoutSeconds: MAX_DURABLE_EXECUTION_TIMEOUT_SECONDS,
  clock: Date.now,
} as const);

/** Names of {@link GuardOptions}, for unknown-option checks. */
export const GUARD_OPTION_NAMES = Object.freeze([
  'journal',
  'ttlSeconds',
  'leaseMs',
  'inProgress',
  'waitMs',
  'retryAfterSeconds',
  'recover',
  'localCache',
  'outcomeCache',
  'effects',
  'durableExecutionTimeoutSeconds',
  'clock',
  'metrics',
  'logger',
  'namespace',
  'tracer',
] as const satisfies readonly (keyof GuardOptions)[]);

/**
 * Checks a factory's options (unknown names included: `known` lists the factory's own names
 * besides the shared ones) and resolves the shared ones into engine settings.
 *
 * @throws InvalidOptionsError naming the factory and the option
 */
export function resolveGuardOptions(factory: string, options: GuardOptions, known: readonly string[]): EngineSettings {
  assertKnownOptions(factory, options, [...GUARD_OPTION_NAMES, ...known]);
  const journal = options.journal as Partial<Journal> | undefined;
  if (!journal || typeof journal.reserve !== 'function' || typeof journal.complete !== 'function') {
    throw new InvalidOptionsError(`${factory}: option 'journal' must be a DynamoDBJournal or MemoryJournal`);
  }
  const localCache = options.localCache;
  if (
    localCache !== undefined &&
    (localCache === null || typeof localCache !== 'object' || localCache.maxItems === undefined)
  ) {
    throw new InvalidOptionsError(`${factory}: option 'localCache' needs maxItems`);
  }
  const outcomeCache = options.outcomeCache as Partial<OutcomeCache> | null | undefined;
  if (
    outcomeCache !== undefined &&
    (typeof outcomeCache?.get !== 'function' || typeof outcomeCache.set !== 'function')
  ) {
    throw new InvalidOptionsError(`${factory}: option 'outcomeCache' must be an OutcomeCache (it has get and set)`);
  }
  if (outcomeCache !== undefined && localCache !== undefined) {
    throw new InvalidOptionsError(`${factory}: give 'outcomeCache' or its shorthand 'localCache', not both`);
  }
  readNumber(factory, 'outcomeCache.timeoutMs', outcomeCache?.timeoutMs, undefined, { min: 1 });
  readString(factory, 'namespace', options.namespace, undefined);
  const { metrics, logger } = options as { metrics?: unknown; logger?: unknown };
  if (metrics !== undefined && typeof (metrics as { singleMetric?: unknown } | null)?.singleMetric !== 'function') {
    throw new InvalidOptionsError(`${factory}: option 'metrics' must be a Powertools Metrics (it has singleMetric)`);
  }
  const logs = logger as { info?: unknown; error?: unknown } | null | undefined;
  if (logger !== undefined && (typeof logs?.info !== 'function' || typeof logs?.error !== 'function')) {
    throw new InvalidOptionsError(`${factory}: option 'logger' must be a Powertools Logger (it has info and error)`);
  }
  const tracer = options.tracer;
  if (tracer !== undefined && (tracer === null || typeof tracer.putAnnotation !== 'function')) {
    throw new InvalidOptionsError(`${factory}: option 'tracer' must be a Powertools Tracer`);
  }
  const effects = readOneOf(factory, 'effects', options.effects, DEFAULT_GUARD_OPTIONS.effects, ['any', 'staged-only']);
  if (effects === 'staged-only' && options.recover !== undefined) {
    // No attempt holds a lease or begins an effect in that mode, so the hook could never be asked.
    throw new InvalidOptionsError(`${factory}: option 'recover' does not apply with effects: 'staged-only'`);
  }
  if (effects === 'staged-only') assertJournalOffers(journal, "effects: 'staged-only'");
  return {
    journal: options.journal,
    ttlSeconds: readNumber(factory, 'ttlSeconds', options.ttlSeconds, DEFAULT_GUARD_OPTIONS.ttlSeconds, {
      min: 1,
      integer: true,
    }),
    leaseMs: readNumber(factory, 'leaseMs', options.leaseMs, undefined, { min: 1 }),
    inProgress: readOneOf(factory, 'inProgress', options.inProgress, DEFAULT_GUARD_OPTIONS.inProgress, [
      'reject',
      'wait',
    ]),
    waitMs: readNumber(factory, 'waitMs', options.waitMs, DEFAULT_GUARD_OPTIONS.waitMs),
    retryAfterSeconds: readNumber(
      factory,
      'retryAfterSeconds',
      options.retryAfterSeconds,
      DEFAULT_GUARD_OPTIONS.retryAfterSeconds,
      { integer: true },
    ),
    recover: readFunction(factory, 'recover', options.recover, undefined),
    effects,
    durableExecutionTimeoutSeconds: readNumber(
      factory,
      'durableExecutionTimeoutSeconds',
      options.durableExecutionTimeoutSeconds,
      DEFAULT_GUARD_OPTIONS.durableExecutionTimeoutSeconds,
      { min: 1, max: MAX_DURABLE_EXECUTION_TIMEOUT_SECONDS, integer: true },
    ),
    outcomeCache: localCache
      ? new MemoryOutcomeCache({
          maxItems: readNumber(factory, 'localCache.maxItems', localCache.maxItems, 0, { min: 1, integer: true }),
        })
      : options.outcomeCache,
    tracer,
    clock: readFunction(factory, 'clock', options.clock, DEFAULT_GUARD_OPTIONS.clock),
    storedFormOf: (response) => response,
    outcomeOf: (result) => ({ store: true, response: result }),
    sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  };
}

export { IdempotencyEngine, type GuardedHandler } from './engine.js';
export { Attempt } from './attempt.js';
export { type Admission, type RunResult } from './attempt-executor.js';
export { type AttemptRequest } from './attempt-request.js';
export { DEFAULT_LEASE_MS, type LambdaContextLike } from './invocation.js';
export {
  CanonicalText,
  canonicalJson,
  fingerprintOf,
  isWellFormed,
  NestedTooDeepError,
  NotCanonicalError,
} from './fingerprint.js';
export {
  DEFAULT_GUARD_OPTIONS,
  legacyLookupOf,
  resolveGuardOptions,
  type MigrationSource,
  type EngineSettings,
  type GuardOptions,
  type HandlerOutcome,
  type LegacyDecision,
  type LegacyLookup,
  type RecoveryDecision,
} from './guard-options.js';
export { durableExecutionNameOf, MAX_DURABLE_EXECUTION_TIMEOUT_SECONDS } from './durable-execution.js';
export { AttemptScope, idempotencyOf, type IdempotencyScope } from './scope.js';
export {
  DEFAULT_OUTCOME_CACHE_TIMEOUT_MS,
  MemoryOutcomeCache,
  type CachedOutcome,
  type MemoryOutcomeCacheOptions,
  type OutcomeCache,
} from './outcome-cache.js';

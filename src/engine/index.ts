export {
  IdempotencyEngine,
  type Admission,
  type AttemptRequest,
  type EngineSettings,
  type HandlerOutcome,
  type RecoveryDecision,
  type Settlement,
  type StagedOnlyInvoke,
  type StagedOnlyOutcome,
} from './engine.js';
export { fingerprintOf, sha256Hex } from './fingerprint.js';
export { LocalCache } from './local-cache.js';
export { GUARD_OPTION_NAMES, checkFunction, checkNumber, rejectUnknownOptions, resolveGuardOptions, type GuardOptions } from './options.js';
export { AttemptScope, MAX_TRANSACTION_ITEMS, type IdempotencyScope } from './scope.js';
export { bindScope, idempotencyOf, unbindScope } from './scope-registry.js';
export { newTrace, type AttemptStatus, type AttemptTrace } from './trace.js';

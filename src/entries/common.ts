/**
 * What every runtime entry point (`idemkit`, `idemkit/sqs`) exports alike: the errors and
 * their codes, the journals and the record schema, and the guard's scope. Kept in one list so
 * the entry points cannot drift apart.
 *
 * @packageDocumentation
 */
export {
  IdempotencyError,
  KeyMissingError,
  KeyInvalidError,
  PayloadMismatchError,
  InProgressError,
  NeedsReviewError,
  LeaseLostError,
  UniqueConflictError,
  WriteConflictError,
  JournalUnavailableError,
  JournalThrottledError,
  JournalError,
  NotResolvableError,
  RequestInvalidError,
  InvalidOptionsError,
  ResponseTooLargeError,
  StagedOnlyError,
  ResponseNotSerializableError,
  StagedWriteError,
  RecordUnreadableError,
  MultiRegionUnsupportedError,
  JournalFeatureUnsupportedError,
  OutboxTooLargeError,
  ERROR_CODES,
  MAX_KEY_LENGTH,
  NO_TENANT,
  IdemkitEnvironment,
  type ErrorCode,
  type ConflictingRecord,
  type IdemkitEnvironmentName,
} from '../core/index.js';
export {
  DynamoDBJournal,
  MemoryJournal,
  type DynamoDBJournalOptions,
  type MemoryJournalOptions,
  type JournalRecord,
  type TransactItem,
  type Evidence,
  RecordStatus,
} from '../journal/index.js';
export {
  idempotencyOf,
  fingerprintOf,
  DEFAULT_GUARD_OPTIONS,
  durableExecutionNameOf,
  MAX_DURABLE_EXECUTION_TIMEOUT_SECONDS,
  type IdempotencyScope,
  type RecoveryDecision,
  type GuardOptions,
  type LambdaContextLike,
  MemoryOutcomeCache,
  type OutcomeCache,
  type CachedOutcome,
  type MemoryOutcomeCacheOptions,
} from '../engine/index.js';

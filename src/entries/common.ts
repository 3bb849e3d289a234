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
  JournalError,
  NotResolvableError,
  RequestInvalidError,
  InvalidOptionsError,
  ResponseTooLargeError,
  StagedOnlyError,
  ResponseNotSerializableError,
  StagedWriteError,
  MultiRegionUnsupportedError,
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
  MEMORY_JOURNAL_TABLE,
  type DynamoDBJournalOptions,
  type MemoryJournalOptions,
  type Journal,
  type JournalRecord,
  type TransactItem,
  type Evidence,
  RecordPrefix,
  RecordStatus,
  RecordAttribute,
  PARTITION_KEY,
  TTL_ATTRIBUTE,
  requestPk,
  messagePk,
  uniquePk,
  outboxPk,
  keyScopeOf,
  type KeyScope,
  journalOperationOf,
  type JournalOperation,
  REPLICATED_CONFLICT_RETRY,
  OUTBOX_IN_RECORD_MAX_BYTES,
} from '../journal/index.js';
export {
  idempotencyOf,
  fingerprintOf,
  DEFAULT_GUARD_OPTIONS,
  type IdempotencyScope,
  type RecoveryDecision,
  type GuardOptions,
} from '../engine/index.js';

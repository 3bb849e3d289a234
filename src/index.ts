/**
 * idemkit: make AWS Lambda handlers safe to retry.
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
  ERROR_CODES,
  MAX_KEY_LENGTH,
  IdemkitEnvironment,
  type ErrorCode,
  type ConflictingRecord,
  type IdemkitEnvironmentName,
} from './core/index.js';
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
} from './journal/index.js';
export { idempotencyOf, fingerprintOf, DEFAULT_GUARD_OPTIONS, type IdempotencyScope, type RecoveryDecision, type GuardOptions } from './engine/index.js';
export { httpIdempotency, REPLAYED_HEADER, DEFAULT_PROBLEM_TYPE_PREFIX, type HttpIdempotencyOptions, type HttpResponse, type StatusCodes } from './http/index.js';
export { makeIdempotent, type MakeIdempotentOptions } from './function/index.js';
export type { MigrateFromOptions, PowertoolsAttributeNames, PowertoolsMigrationOptions } from './migration/index.js';
export { MetricName, MetricDimension, DEFAULT_METRICS_NAMESPACE, type TelemetryOptions, type MetricsSink, type LogSink, type TracerLike, type AttemptStatus } from './telemetry/index.js';
export * from './client/index.js';
export * from './sqs/index.js';
export * from './outbox/index.js';

/**
 * idemkit: make AWS Lambda handlers safe to retry.
 *
 * @packageDocumentation
 */
export * from './errors/index.js';
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
export { idempotencyOf, fingerprintOf, type IdempotencyScope, type RecoveryDecision, type GuardOptions, type AttemptStatus } from './engine/index.js';
export { httpIdempotency, REPLAYED_HEADER, DEFAULT_PROBLEM_TYPE_PREFIX, type HttpIdempotencyOptions, type HttpResponse, type StatusCodes } from './http/index.js';
export { makeIdempotent, type MakeIdempotentOptions } from './function/index.js';
export type { MigrateFromOptions, PowertoolsAttributeNames, PowertoolsMigrationOptions } from './migration/index.js';
export { MetricName, MetricDimension, DEFAULT_METRICS_NAMESPACE, type TelemetryOptions, type MetricsSink, type LogSink } from './telemetry/index.js';
export * from './client/index.js';
export * from './sqs/index.js';
export * from './outbox/index.js';

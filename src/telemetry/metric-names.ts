/**
 * CloudWatch metric names emitted by the runtime (Embedded Metric Format).
 *
 * `lib/` imports these for dashboards and alarms, so names are never retyped.
 */
export const MetricName = {
  newRequest: 'NewRequest',
  replay: 'Replay',
  payloadMismatch: 'PayloadMismatch',
  inProgressCollision: 'InProgressCollision',
  expiredKeyRetry: 'ExpiredKeyRetry',
  leaseTakeover: 'LeaseTakeover',
  unknownAfterEffect: 'UnknownAfterEffect',
  released: 'Released',
  commitConflict: 'CommitConflict',
  duplicateSuppressed: 'DuplicateSuppressed',
  outboxPublished: 'OutboxPublished',
  journalError: 'JournalError',
  /**
   * An attempt met a throttled journal call (DynamoDB over a partition's, table's or account's throughput), counted
   * once per attempt; never counted as `JournalError`.
   */
  journalThrottled: 'JournalThrottled',
  /** A record of the previous idempotency library answered (replay, in progress or mismatch) during a migration. */
  legacyHit: 'LegacyHit',
  /**
   * A journal write of a multi-Region (MRSC) journal refused because another Region wrote the same item at the same
   * moment (`ReplicatedWriteConflictException`), counted per refusal, retried or not: cross-Region contention.
   */
  replicatedWriteConflict: 'ReplicatedWriteConflict',
  /** Expired records the sweeper of a multi-Region journal deleted (it emits this one, dimensionless). */
  sweptRecords: 'SweptRecords',
  /**
   * Expired items the sweeper of a multi-Region journal left because it cannot read their state (a status the guard
   * does not know, or none): they may stand for an effect that happened, so an operator decides (dimensionless).
   */
  unreadableRecords: 'UnreadableRecords',
} as const;
export type MetricName = (typeof MetricName)[keyof typeof MetricName];

/** Default CloudWatch namespace. */
export const DEFAULT_METRICS_NAMESPACE = 'Idempotency';

/** Service name of the default logger and metrics when `POWERTOOLS_SERVICE_NAME` is not set. */
export const DEFAULT_SERVICE_NAME = 'idemkit';

/** Metric dimension names: an operation for HTTP and functions, a consumer for queues. Never tenant or key. */
export const MetricDimension = {
  operation: 'Operation',
  consumer: 'Consumer',
} as const;

/**
 * CDK constructs of idemkit (`idemkit/cdk`): the journal table (created or imported), a
 * guarded queue consumer, a guarded stream consumer, the outbox dispatcher, the sweeper of a
 * multi-Region journal, and a dashboard with alarms.
 *
 * The example payments service built from them lives in `lib/example/` and is not part of
 * this entry.
 */
export * from './journal-table.js';
export * from './function-runtime.js';
export * from './idemkit-function.js';
export * from './idempotency-metric.js';
export * from './secure-queue.js';
export * from './guarded-queue-consumer.js';
export * from './guarded-stream-consumer.js';
export * from './outbox-dispatcher.js';
export * from './journal-sweeper.js';
export * from './idempotency-dashboard.js';

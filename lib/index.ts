/**
 * CDK constructs of idemkit (`idemkit/cdk`): the journal table, a guarded queue consumer,
 * the outbox dispatcher, a dashboard with alarms, and the example payments service.
 */
export * from './journal-table.js';
export * from './idemkit-function.js';
export * from './idempotency-metric.js';
export * from './secure-queue.js';
export * from './guarded-queue-consumer.js';
export * from './outbox-dispatcher.js';
export * from './idempotency-dashboard.js';
export * from './example-handler-entry.js';
export * from './payments-api.js';
export * from './payments-service-stack.js';

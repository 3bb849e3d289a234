/**
 * Helpers for testing guarded handlers (`idemkit/testing`): events and contexts as Lambda
 * delivers them, a journal table on DynamoDB Local, and a DynamoDB Local launcher. For test
 * code only: it is its own entry so it never lands in a Lambda bundle.
 */
export * from './lambda-context.js';
export * from './http-events.js';
export * from './lambda-streaming.js';
export * from './record-events.js';
export * from './journal-table.js';
export * from './dynamodb-local.js';
export { freePort, stopProcess, STOP_GRACE_MS } from './local-process.js';

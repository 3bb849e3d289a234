export * from './idempotency-error.js';

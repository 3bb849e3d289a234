export { idempotency, idempotencyOf, type ExpressIdempotencyOptions } from './express-idempotency.js';

export { idempotency, idempotencyOf, type HonoIdempotencyOptions } from './hono-idempotency.js';

export { idempotency, idempotencyOf, type FastifyIdempotencyOptions } from './fastify-idempotency.js';

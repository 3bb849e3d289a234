/**
 * idemkit/fastify: the HTTP guard as a Fastify plugin, for apps run in a server, a container or a
 * Lambda (behind `@fastify/aws-lambda`).
 *
 * @packageDocumentation
 */
export * from './common.js';
export { idempotency, idempotencyOf, type FastifyIdempotencyOptions } from '../fastify/index.js';
export type { HttpGuardOptions, HttpResponse, LambdaInvocation, StatusCodes } from '../http/index.js';

/**
 * idemkit/hono: the HTTP guard as Hono middleware, for apps run in a server, a container or a
 * Lambda (behind `hono/aws-lambda`).
 *
 * @packageDocumentation
 */
export * from './common.js';
export { idempotency, idempotencyOf, type HonoIdempotencyOptions } from '../hono/index.js';
export type { HttpGuardOptions, HttpResponse, LambdaInvocation, StatusCodes } from '../http/index.js';

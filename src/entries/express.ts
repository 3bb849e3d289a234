/**
 * idemkit/express: the HTTP guard as Express 4/5 route middleware, for apps run in a server, a
 * container or a Lambda (behind `serverless-http` or `@codegenie/serverless-express`).
 *
 * @packageDocumentation
 */
export * from './common.js';
export { idempotency, idempotencyOf, type ExpressIdempotencyOptions } from '../express/index.js';
export type { HttpGuardOptions, HttpResponse, LambdaInvocation, StatusCodes } from '../http/index.js';

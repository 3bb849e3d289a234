export { DEFAULT_HTTP_IDEMPOTENCY_OPTIONS, httpIdempotency, type HttpIdempotencyOptions } from './http-idempotency.js';
export { DEFAULT_PROBLEM_TYPE_PREFIX, REPLAYED_HEADER, type HttpResponse, type StatusCodes } from './http-response.js';
export { readKeyHeader } from './http-event.js';
export type { HttpIdempotencyMiddleware, MiddyRequest } from './middy-middleware.js';
export { defaultHttpFingerprint } from './request-fingerprint.js';

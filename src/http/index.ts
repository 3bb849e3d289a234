export { httpIdempotency, type HttpIdempotencyOptions } from './http-idempotency.js';
export type { StatusCodes } from './problem.js';
export type { HttpResponse } from './http-response.js';
export { REPLAYED_HEADER } from './http-response.js';
export { DEFAULT_PROBLEM_TYPE_PREFIX } from './problem.js';
export { readKeyHeader } from './key-header.js';

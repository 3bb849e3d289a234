export { httpIdempotency, type HttpIdempotencyOptions } from './http-idempotency.js';
export {
  DEFAULT_HTTP_IDEMPOTENCY_OPTIONS,
  resolveHttpGuardOptions,
  type HttpGuardOptions,
} from './http-guard-options.js';
export { HttpGuard, OversizedResponse, type DoorAnswer, type DoorEnding, type HttpGuardRequest } from './http-guard.js';
export { DEFAULT_PROBLEM_TYPE_PREFIX, REPLAYED_HEADER, type HttpResponse, type StatusCodes } from './http-response.js';
export { readKeyHeader } from './http-event.js';
export { defaultHttpFingerprint } from './request-fingerprint.js';

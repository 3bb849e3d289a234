export { httpIdempotency, type HttpIdempotencyOptions } from './http-idempotency.js';
export {
  DEFAULT_HTTP_IDEMPOTENCY_OPTIONS,
  resolveHttpGuardOptions,
  type HttpGuardOptions,
} from './http-guard-options.js';
export { HttpGuard, OversizedResponse, type DoorAnswer, type DoorEnding, type HttpGuardRequest } from './http-guard.js';
export { doorRequest, idempotencyOfRequest, readsLambdaEvent, type LambdaInvocation } from './door-request.js';
export {
  BodyCapture,
  capturedResponse,
  MAX_CAPTURED_BODY_BYTES,
  responseToSend,
  type HeaderValue,
} from './captured-response.js';
export { DEFAULT_PROBLEM_TYPE_PREFIX, REPLAYED_HEADER, type HttpResponse, type StatusCodes } from './http-response.js';
export { readKeyHeader } from './http-event.js';
export type { HttpIdempotencyMiddleware, MiddyRequest } from './middy-middleware.js';
export { defaultHttpFingerprint } from './request-fingerprint.js';

/**
 * idemkit: make AWS Lambda handlers safe to retry.
 *
 * @packageDocumentation
 */
export * from './entries/common.js';
export {
  DEFAULT_HTTP_IDEMPOTENCY_OPTIONS,
  defaultHttpFingerprint,
  httpIdempotency,
  REPLAYED_HEADER,
  DEFAULT_PROBLEM_TYPE_PREFIX,
  type HttpIdempotencyMiddleware,
  type HttpIdempotencyOptions,
  type HttpResponse,
  type MiddyRequest,
  type StatusCodes,
} from './http/index.js';
export { makeIdempotent, type MakeIdempotentOptions } from './function/index.js';
export type { MigrationSource } from './engine/index.js';
export {
  MetricName,
  MetricDimension,
  DEFAULT_METRICS_NAMESPACE,
  type TelemetryOptions,
  type MetricsSink,
  type LogSink,
  type TracerLike,
  type AttemptStatus,
} from './telemetry/index.js';
export * from './sqs/index.js';
export * from './streams/index.js';

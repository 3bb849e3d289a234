export * from './metric-names.js';
export { traceIdOf } from './invocation-trace.js';
export {
  Telemetry,
  defaultLogger,
  defaultMetrics,
  type AttemptIdentity,
  type TelemetryOptions,
  type MetricsSink,
  type LogSink,
  type TracerLike,
  newTrace,
  type AttemptStatus,
  type AttemptTrace,
} from './telemetry.js';

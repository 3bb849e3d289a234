export * from './metric-names.js';
export {
  Telemetry,
  defaultLogger,
  defaultMetrics,
  type AttemptIdentity,
  type TelemetryOptions,
  type MetricsSink,
  type LogSink,
  type TracerLike,
} from './telemetry.js';
export { newTrace, type AttemptStatus, type AttemptTrace } from './attempt-trace.js';

export * from './metric-names.js';
export { Telemetry, defaultLogger, defaultMetrics, type AttemptIdentity, type TelemetryOptions, type MetricsSink, type LogSink } from './telemetry.js';

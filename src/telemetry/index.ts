export * from './metric-names.js';
export { Telemetry, type AttemptIdentity, type TelemetryOptions, type MetricsSink, type LogSink } from './telemetry.js';

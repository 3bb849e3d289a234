export * from './metric-names.js';
export { Telemetry, type AttemptIdentity, type TelemetryOptions } from './telemetry.js';

import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { IdemkitEnvironment, sha256Hex } from '../core/index.js';
import { DEFAULT_METRICS_NAMESPACE, DEFAULT_SERVICE_NAME, type MetricName } from './metric-names.js';

/** What the guard needs of a metrics sink: a Powertools `Metrics` instance fits. */
export type MetricsSink = Pick<Metrics, 'singleMetric'>;
/** What the guard needs of a logger: a Powertools `Logger` instance fits. */
export type LogSink = Pick<Logger, 'info' | 'error'>;

/**
 * What the guard needs of a tracer: a Powertools `Tracer` fits. Journal calls appear as
 * subsegments of the SDK client it captures; each attempt annotates `idempotency_status` and
 * `attempt` on the current segment.
 */
export interface TracerLike {
  putAnnotation(key: string, value: string | number | boolean): void;
  captureAWSv3Client<T>(client: T): T;
}

/** Telemetry options shared by every entry point. */
export interface TelemetryOptions {
  /**
   * A Powertools `Metrics` instance; each metric is emitted as its own EMF record with the
   * `Operation` or `Consumer` dimension (never tenant or key).
   * @default a `Metrics` in the namespace below, service `POWERTOOLS_SERVICE_NAME` or 'idemkit'
   *   (`POWERTOOLS_METRICS_DISABLED` turns it off)
   */
  readonly metrics?: MetricsSink;
  /**
   * A Powertools `Logger` instance for the per-attempt log line.
   * @default a `Logger` of service `POWERTOOLS_SERVICE_NAME` or 'idemkit', at `POWERTOOLS_LOG_LEVEL`
   */
  readonly logger?: LogSink;
  /**
   * CloudWatch namespace of the default `Metrics` instance (your own instance keeps its own).
   * @default `POWERTOOLS_METRICS_NAMESPACE`, or 'Idempotency' when it is not set
   */
  readonly namespace?: string;
  /**
   * A Powertools `Tracer`: the journal's (and the dispatcher's) AWS SDK calls become X-Ray
   * subsegments and each attempt annotates `idempotency_status` and `attempt` (never the key).
   * @default undefined (no tracing)
   * @example
   * const tracer = new Tracer({ serviceName: 'payments' });
   * middy(handler).use(captureLambdaHandler(tracer)).use(httpIdempotency({ journal, tracer }));
   */
  readonly tracer?: TracerLike;
}

/**
 * The service name of the default logger and metrics: the Powertools environment's, so the
 * log lines of a function carry the service its construct gave it.
 */
function defaultServiceName(): string {
  return process.env[IdemkitEnvironment.serviceName] || DEFAULT_SERVICE_NAME;
}

/**
 * The `Logger` an entry point creates when given none: service from `POWERTOOLS_SERVICE_NAME`
 * (else 'idemkit'); Powertools reads `POWERTOOLS_LOG_LEVEL` itself.
 *
 * @example const logger = options.logger ?? defaultLogger();
 */
export function defaultLogger(): Logger {
  return new Logger({ serviceName: defaultServiceName() });
}

/**
 * The `Metrics` an entry point creates when given none. The namespace is the option, else
 * `POWERTOOLS_METRICS_NAMESPACE`, else 'Idempotency', so the namespace a construct sets is the
 * one its dashboard and alarms watch; Powertools reads `POWERTOOLS_METRICS_DISABLED` itself.
 *
 * @example const metrics = options.metrics ?? defaultMetrics(options.namespace);
 */
export function defaultMetrics(namespace?: string): Metrics {
  return new Metrics({
    namespace: namespace ?? (process.env[IdemkitEnvironment.metricsNamespace] || DEFAULT_METRICS_NAMESPACE),
    serviceName: defaultServiceName(),
  });
}

/** Identity of an attempt for its log line; the raw key is hashed here and never logged. */
export interface AttemptIdentity {
  readonly requestId?: string;
  /** The invocation's own X-Ray trace header ({@link traceIdOf}). */
  readonly traceId?: string;
  readonly tenant?: string;
  /** The invocation's tenant under Lambda tenant isolation (`context.tenantId`). */
  readonly lambdaTenant?: string;
  readonly operation: string;
  readonly key?: string;
  readonly requestHash?: string;
  readonly responseCode?: number;
  readonly resourceId?: string;
}

/** Writes the one structured log line and the EMF metrics of each guarded attempt. */
export class Telemetry {
  private readonly metrics: MetricsSink;
  private readonly logger: LogSink;
  private single?: ReturnType<MetricsSink['singleMetric']>;

  constructor(
    private readonly dimensionName: string,
    options: TelemetryOptions,
  ) {
    this.metrics = options.metrics ?? defaultMetrics(options.namespace);
    this.logger = options.logger ?? defaultLogger();
  }

  /**
   * One single-metric emitter, reused: creating a Powertools `Metrics` per metric costs more
   * than the rest of an attempt's bookkeeping.
   */
  private singleMetric(): ReturnType<MetricsSink['singleMetric']> {
    if (!this.single) {
      this.single = this.metrics.singleMetric();
      // Only Operation (or Consumer): a default `service` dimension would split every alarm's series.
      this.single.clearDefaultDimensions?.();
    }
    return this.single;
  }

  /** Emits the attempt's log line and metrics. Telemetry never fails the request. */
  emit(identity: AttemptIdentity, trace: AttemptTrace, startedAtEpochMs: number, nowEpochMs: number): void {
    try {
      const fields = {
        request_id: identity.requestId,
        trace_id: identity.traceId,
        tenant_id: identity.tenant,
        lambda_tenant_id: identity.lambdaTenant,
        operation: identity.operation,
        idempotency_key_hash: identity.key === undefined ? undefined : sha256Hex(identity.key).slice(0, 16),
        request_hash: identity.requestHash?.slice(0, 16),
        attempt_number: trace.attempt,
        idempotency_status: trace.status,
        response_code: identity.responseCode,
        resource_id: identity.resourceId,
        downstream_reference: trace.downstreamReference,
        journal_calls: trace.journalCalls,
        legacy_record: trace.legacy,
        throttle_reasons: trace.throttleReasons?.join(','),
        duration_ms: nowEpochMs - startedAtEpochMs,
      };
      if (trace.journalError) this.logger.error('idempotency journal error', { ...fields, error: trace.journalError });
      else if (trace.failure) this.logger.error('idempotency attempt failed', { ...fields, error: trace.failure });
      else this.logger.info('idempotency', fields);
      for (const name of trace.metrics) {
        const single = this.singleMetric();
        // Each metric carries its own dimension only, whether or not the sink cleared the last one when it flushed.
        single.clearDimensions?.();
        single.addDimension(this.dimensionName, identity.operation);
        single.addMetric(name, MetricUnit.Count, 1);
      }
    } catch {
      // Observability must not turn a correct answer into a failure.
    }
  }
}

/** `idempotency_status` values of the per-attempt log line. */
export type AttemptStatus =
  | 'new'
  | 'replay'
  | 'in_progress'
  | 'mismatch'
  | 'expired'
  | 'recovered'
  | 'resumed'
  | 'unknown'
  | 'released'
  | 'missing_key'
  | 'invalid_key'
  | 'conflict'
  | 'lease_lost'
  | 'journal_unavailable'
  | 'journal_throttled'
  | 'record_unreadable';

/** What happened during one guarded attempt, filled in by the engine and the entry point. */
export interface AttemptTrace {
  status?: AttemptStatus;
  attempt?: number;
  journalCalls: number;
  readonly metrics: MetricName[];
  downstreamReference?: string;
  /**
   * During a migration: what the previous library's record decided (`replay`, `in-progress`, `mismatch`) or why it did
   * not.
   */
  legacy?: string;
  /** Set when the completion write failed after the handler ran and its response was returned unstored. */
  journalError?: Error;
  /** Set when the attempt failed after its handler ran for a reason of the handler's (a staged write refused). */
  failure?: Error;
  /** DynamoDB's reasons for the throttles the attempt's journal calls met (`TableWriteKeyRangeThroughputExceeded`). */
  throttleReasons?: readonly string[];
}

/** A fresh trace. */
export function newTrace(): AttemptTrace {
  return { journalCalls: 0, metrics: [] };
}

import type { LogSink, MetricsSink } from '../../src/index.js';

/** One guarded attempt as its log line described it. */
export interface AttemptLine {
  readonly status: string;
  readonly responseCode?: number;
  readonly attempt?: number;
  readonly journalCalls?: number;
  readonly operation?: string;
}

/**
 * Telemetry sinks for the demo: they keep the log lines and count the metrics the runtime
 * emits, so each scenario can print the `idempotency_status` of its attempts and the run can
 * end with a metrics table.
 */
export class TelemetryCapture {
  readonly metricCounts = new Map<string, number>();
  private lines: AttemptLine[] = [];

  /** A logger that records each attempt's line instead of printing JSON. */
  readonly logger: LogSink = {
    info: (_message: unknown, fields?: unknown) => this.record(fields),
    error: (_message: unknown, fields?: unknown) => this.record(fields),
  } as LogSink;

  /** A metrics sink that counts each metric by name. */
  readonly metrics: MetricsSink = {
    singleMetric: () =>
      ({
        addDimension: () => undefined,
        addMetric: (name: string) => this.metricCounts.set(name, (this.metricCounts.get(name) ?? 0) + 1),
      }) as never,
  };

  /** The attempts logged since the last call, oldest first. */
  drain(): AttemptLine[] {
    const lines = this.lines;
    this.lines = [];
    return lines;
  }

  private record(fields: unknown): void {
    const f = (fields ?? {}) as Record<string, unknown>;
    if (typeof f.idempotency_status !== 'string') return;
    this.lines.push({
      status: f.idempotency_status,
      responseCode: f.response_code as number | undefined,
      attempt: f.attempt_number as number | undefined,
      journalCalls: f.journal_calls as number | undefined,
      operation: f.operation as string | undefined,
    });
  }
}

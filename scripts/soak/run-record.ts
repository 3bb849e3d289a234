import type { FaultKind } from './fault-schedule.js';

/** The routes the soak calls. */
export type RouteName = 'create-payment' | 'get-payment' | 'create-refund';

/** What a request stood for, as a retrying client would send it. */
export type Scenario =
  | 'new-payment'
  | 'concurrent-retry'
  | 'retry-after-completion'
  | 'retry-after-ambiguous'
  | 'changed-body'
  | 'refund'
  | 'refund-retry'
  | 'get'
  | 'retry-client'
  | 'warm-up'
  | 'settle';

/** One HTTP request and its answer. */
export interface Exchange {
  /** When it was sent, in run time (ms since the load started). */
  readonly sentAtMs: number;
  readonly latencyMs: number;
  readonly route: RouteName;
  readonly scenario: Scenario;
  readonly key?: string;
  /** HTTP status, or 0 when no answer came (a network error or time-out). */
  readonly status: number;
  /** `type` of a problem answer. */
  readonly problemType?: string;
  readonly paymentId?: string;
  readonly refundId?: string;
  /** Sent with a body other than the key's first one (a client bug the guard must refuse). */
  readonly changedBody?: boolean;
  /** Warm-up before the clock starts (not in the figures, still in the invariants), the load, or owners settling after it. */
  readonly phase: 'warm-up' | 'load' | 'settle';
}

/** One injected fault (or several of one kind at one moment). */
export interface FaultEvent {
  readonly atMs: number;
  readonly kind: FaultKind;
  readonly count: number;
}

/**
 * Everything the run observed, in run time: the requests and answers, the injected faults,
 * how late each arrival left against its schedule, and the guard's own log lines counted by
 * `idempotency_status`. The report and the invariants read it.
 *
 * @example
 * const record = new RunRecord(() => performance.now() - startedAt);
 * record.fault('sqs-redelivery', 3);
 */
export class RunRecord {
  readonly exchanges: Exchange[] = [];
  readonly faults: FaultEvent[] = [];
  /** Each client action the schedule started: when it was due and when it left, in run time. */
  readonly arrivals: { readonly dueMs: number; readonly atMs: number }[] = [];
  /** `<operation or consumer> <idempotency_status>` → count, from the guard's log lines. */
  readonly guardStatuses = new Map<string, number>();
  /** Invocations answered 500 (a killed worker, a handler error), by cause. */
  readonly functionErrors = new Map<string, number>();
  /** The guard's log lines themselves, for `--trace`. */
  readonly guardLines: object[] = [];
  /**
   * `<operation or consumer> <idempotency_key_hash>` of attempts whose handler ran but whose
   * completion write failed without staged writes: the guard answered with the handler's
   * outcome and left the record to its lease (DESIGN rule 5).
   */
  readonly completionFailures = new Set<string>();

  constructor(readonly now: () => number) {}

  /** Records a fault injected at `atMs` (default: now). */
  fault(kind: FaultKind, count = 1, atMs = this.now()): void {
    if (count > 0) this.faults.push({ atMs, kind, count });
  }

  exchange(exchange: Exchange): void {
    this.exchanges.push(exchange);
  }

  /** Counts the guard's per-attempt log line (JSON with `operation` and `idempotency_status`); other lines are ignored. */
  guardLogLine(line: string): void {
    if (!line.startsWith('{')) return;
    try {
      const entry = JSON.parse(line) as {
        idempotency_status?: string;
        operation?: string;
        message?: string;
        idempotency_key_hash?: string;
      };
      // The per-attempt line names its operation (or consumer); other lines repeat a status already counted.
      if (entry.idempotency_status === undefined || entry.operation === undefined) return;
      this.guardLines.push(entry);
      if (entry.message === COMPLETION_FAILED_MESSAGE)
        this.completionFailures.add(`${entry.operation} ${entry.idempotency_key_hash}`);
      const name = `${entry.operation} ${entry.idempotency_status}`;
      this.guardStatuses.set(name, (this.guardStatuses.get(name) ?? 0) + 1);
    } catch {
      // Not a log line of the guard.
    }
  }

  /** Counts an invocation answered 500. */
  functionError(message: string): void {
    this.functionErrors.set(message, (this.functionErrors.get(message) ?? 0) + 1);
  }

  /** Faults injected, by kind. */
  faultTotals(): Map<FaultKind, number> {
    const totals = new Map<FaultKind, number>();
    for (const event of this.faults) totals.set(event.kind, (totals.get(event.kind) ?? 0) + event.count);
    return totals;
  }
}

/** The guard's log message when a completion write failed after the handler ran. */
const COMPLETION_FAILED_MESSAGE = 'idempotency journal error';

/** The `p`-th percentile (0–100) of `values`, nearest rank; NaN when empty. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

/** Answer classes the report and the chart group statuses into. */
export const STATUS_CLASSES = ['2xx', '409', 'other 4xx', '5xx', 'no answer'] as const;
export type StatusClass = (typeof STATUS_CLASSES)[number];

/** The class of an HTTP status (0: no answer). */
export function statusClass(status: number): StatusClass {
  if (status === 0) return 'no answer';
  if (status >= 200 && status < 300) return '2xx';
  if (status === 409) return '409';
  if (status >= 400 && status < 500) return 'other 4xx';
  return '5xx';
}

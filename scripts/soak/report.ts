import { FAULT_KINDS, type FaultKind } from './fault-schedule.js';
import { INVARIANTS, type Invariant, type InvariantResult, type Violation } from './invariants.js';
import { percentile, STATUS_CLASSES, statusClass, type RunRecord, type StatusClass } from './run-record.js';

/** How the run was started. */
export interface SoakSettings {
  readonly durationSeconds: number;
  readonly ratePerSecond: number;
  readonly seed: number;
  readonly workers: number;
}

/** The run's figures, as the report and `--json` give them. */
export interface SoakSummary {
  readonly settings: SoakSettings;
  readonly passed: boolean;
  readonly rate: {
    readonly target: number;
    readonly achieved: number;
    readonly minPerSecond: number;
    readonly maxPerSecond: number;
    readonly arrivalLagP99Ms: number;
  };
  readonly requests: {
    readonly load: number;
    readonly settle: number;
    readonly retryClientRetries: number;
    readonly keys: number;
  };
  readonly latencyMs: { readonly p50: number; readonly p99: number; readonly max: number };
  readonly answers: Record<StatusClass, number>;
  readonly statuses: Record<string, number>;
  readonly faults: Record<FaultKind, number>;
  readonly faultKindsMissing: readonly FaultKind[];
  readonly workerRestarts: number;
  /** Invocations answered 500, by cause. */
  readonly functionErrors: Record<string, number>;
  readonly violations: readonly Violation[];
  readonly checked: Record<Invariant, number>;
  readonly unknownRecords: Record<string, number>;
  /** Records left `IN_PROGRESS` past their lease after a failed completion write with nothing staged. */
  readonly abandonedAfterCompletionFailure: readonly string[];
  readonly guardStatuses: Record<string, number>;
  readonly drained: boolean;
}

/** Everything the summary is made from. */
export interface SummaryInput {
  readonly settings: SoakSettings;
  readonly record: RunRecord;
  readonly invariants: InvariantResult;
  readonly extraViolations: readonly Violation[];
  readonly retryClientRetries: number;
  readonly keys: number;
  readonly workerRestarts: number;
  readonly drained: boolean;
}

/**
 * Reduces the run to its figures: the rate held against the schedule (arrivals per second
 * of the load), latency over every answered request of the load, answers by status class
 * and by exact status, faults by kind, and the invariants. The run passes with zero
 * violations and every fault kind injected.
 *
 * @example const summary = summarize({ settings, record, invariants, ... }); summary.passed
 */
export function summarize(input: SummaryInput): SoakSummary {
  const { record, settings } = input;
  const load = record.exchanges.filter((exchange) => exchange.phase === 'load');
  const perSecond = new Array<number>(settings.durationSeconds).fill(0);
  for (const arrival of record.arrivals)
    perSecond[Math.min(settings.durationSeconds - 1, Math.floor(arrival.atMs / 1000))]! += 1;
  const latencies = load.filter((exchange) => exchange.status !== 0).map((exchange) => exchange.latencyMs);
  const answers = Object.fromEntries(STATUS_CLASSES.map((c) => [c, 0])) as Record<StatusClass, number>;
  const statuses: Record<string, number> = {};
  const measured = record.exchanges.filter((exchange) => exchange.phase !== 'warm-up');
  for (const exchange of measured) {
    answers[statusClass(exchange.status)] += 1;
    const name =
      exchange.status === 0
        ? 'no answer'
        : `${exchange.status}${exchange.problemType ? ` ${exchange.problemType.replace(/^.*:/, '')}` : ''}`;
    statuses[name] = (statuses[name] ?? 0) + 1;
  }
  const totals = record.faultTotals();
  const faults = Object.fromEntries(FAULT_KINDS.map((kind) => [kind, totals.get(kind) ?? 0])) as Record<
    FaultKind,
    number
  >;
  const faultKindsMissing = FAULT_KINDS.filter((kind) => faults[kind] === 0);
  const violations = [...input.invariants.violations, ...input.extraViolations];
  const arrivals = record.arrivals.length;
  return {
    settings,
    passed: violations.length === 0 && faultKindsMissing.length === 0,
    rate: {
      target: settings.ratePerSecond,
      achieved: round(arrivals / settings.durationSeconds, 2),
      minPerSecond: Math.min(...perSecond),
      maxPerSecond: Math.max(...perSecond),
      arrivalLagP99Ms: round(
        percentile(
          record.arrivals.map((arrival) => arrival.atMs - arrival.dueMs),
          99,
        ),
        1,
      ),
    },
    requests: {
      load: load.length,
      settle: measured.length - load.length,
      retryClientRetries: input.retryClientRetries,
      keys: input.keys,
    },
    latencyMs: {
      p50: round(percentile(latencies, 50), 1),
      p99: round(percentile(latencies, 99), 1),
      max: round(Math.max(...latencies), 1),
    },
    answers,
    statuses: sortedRecord(statuses),
    faults,
    faultKindsMissing,
    workerRestarts: input.workerRestarts,
    functionErrors: sortedRecord(Object.fromEntries(record.functionErrors)),
    violations,
    checked: Object.fromEntries(
      INVARIANTS.map((invariant) => [invariant, input.invariants.checked.get(invariant) ?? 0]),
    ) as Record<Invariant, number>,
    unknownRecords: Object.fromEntries(input.invariants.unknownRecords),
    abandonedAfterCompletionFailure: input.invariants.abandonedAfterCompletionFailure,
    guardStatuses: sortedRecord(Object.fromEntries(record.guardStatuses)),
    drained: input.drained,
  };
}

const FAULT_MEANING: Record<FaultKind, string> = {
  'dynamodb-throttle':
    'SDK attempts refused with `ProvisionedThroughputExceededException` (the SDK retries them with backoff)',
  'dynamodb-latency': 'SDK attempts held back 100–500 ms before they were sent',
  'response-dropped-after-reserve': 'reservation `PutItem` landed, its answer lost; the SDK resent it',
  'response-dropped-after-commit': 'completion `TransactWriteItems` landed, its answer lost; the SDK resent it',
  'kill-after-reserve': 'worker killed (SIGKILL by PID) right after its reservation landed',
  'kill-after-begin-effect': 'worker killed after `beginEffect`, before the payment rail was called',
  'kill-after-charge': 'worker killed after the rail charged or refunded, before the evidence was recorded',
  'sqs-redelivery': 'consumed order-events messages not deleted: redelivered after the visibility timeout',
  'outbox-redispatch': 'outbox events dispatched again (stream checkpoint not moved): sent twice',
};

/** The report `soak.md` (in `.local/soak/`, `--out`, or the tracked `docs/` with `--update-docs`). */
export function renderReport(
  summary: SoakSummary,
  context: { readonly command: string; readonly date: string; readonly machine: string; readonly chartFile: string },
): string {
  const { rate, latencyMs, requests } = summary;
  const lines = [
    '# Soak run',
    '',
    `Generated by \`${context.command}\` on ${context.date} (${context.machine}). Do not edit by hand: the next run rewrites it.`,
    '',
    `**${summary.passed ? 'PASSED' : 'FAILED'}**: ${summary.violations.length} invariant violation${summary.violations.length === 1 ? '' : 's'}, ` +
      `${FAULT_KINDS.length - summary.faultKindsMissing.length} of ${FAULT_KINDS.length} fault kinds injected` +
      (summary.faultKindsMissing.length > 0 ? ` (never injected: ${summary.faultKindsMissing.join(', ')})` : '') +
      (summary.drained ? '.' : '; the queues did not drain.'),
    '',
    `![requests, answers by status, latency and injected faults over time](${context.chartFile})`,
    '',
    '| figure | value |',
    '|---|---|',
    `| rate held | ${rate.achieved} client actions/s against ${rate.target}/s scheduled (every full second: ${rate.minPerSecond}–${rate.maxPerSecond}); arrivals left at most ${rate.arrivalLagP99Ms} ms late (p99) |`,
    `| requests | ${requests.load} during the load (${requests.retryClientRetries} of them retries by the retry client), ${requests.settle} by owners settling afterwards; ${requests.keys} idempotency keys |`,
    `| latency (load) | p50 ${latencyMs.p50} ms, p99 ${latencyMs.p99} ms, max ${latencyMs.max} ms |`,
    `| answers | ${STATUS_CLASSES.map((c) => `${c}: ${summary.answers[c]}`).join(', ')} |`,
    `| faults injected | ${FAULT_KINDS.map((kind) => summary.faults[kind]).reduce((a, b) => a + b, 0)} (by kind below); ${summary.workerRestarts} workers restarted after kills |`,
    `| records left UNKNOWN | ${unknownLine(summary.unknownRecords)} |`,
    `| records left IN_PROGRESS past their lease | ${summary.abandonedAfterCompletionFailure.length === 0 ? '0' : `${summary.abandonedAfterCompletionFailure.length}, each after a completion write that failed with nothing staged (the guard answered and left the record to its lease; a queue message so answered is deleted, so no redelivery takes the lease over)`} |`,
    `| invariant violations | ${summary.violations.length} |`,
    '',
    '## Invariants',
    '',
    'Checked after the clients settled and the queues drained, against the tables themselves and every answer the clients got.',
    '',
    '| invariant | items checked | violations |',
    '|---|---:|---:|',
    ...INVARIANTS.map(
      (invariant) =>
        `| ${invariant} | ${summary.checked[invariant]} | ${summary.violations.filter((v) => v.invariant === invariant).length} |`,
    ),
    ...(summary.violations.length > 0
      ? ['', '### Violations', '', ...summary.violations.slice(0, 50).map((v) => `- ${v.invariant}: ${v.detail}`)]
      : []),
    '',
    '## Faults injected',
    '',
    '| kind | count | what happened |',
    '|---|---:|---|',
    ...FAULT_KINDS.map((kind) => `| ${kind} | ${summary.faults[kind]} | ${FAULT_MEANING[kind]} |`),
    '',
    '## Answers by status',
    '',
    '| status | count |',
    '|---|---:|',
    ...Object.entries(summary.statuses).map(([status, count]) => `| ${status} | ${count} |`),
    '',
    'Invocations answered 500 (as HTTP API answers a failed Lambda invocation), by cause:',
    '',
    '| route: cause | count |',
    '|---|---:|',
    ...Object.entries(summary.functionErrors).map(([cause, count]) => `| ${cause.replace(/\|/g, '\\|')} | ${count} |`),
    '',
    '## What the guard logged',
    '',
    "Attempts by `idempotency_status`, from the guard's own log lines (HTTP operations and the queue consumer).",
    '',
    '| operation, status | attempts |',
    '|---|---:|',
    ...Object.entries(summary.guardStatuses).map(([name, count]) => `| ${name} | ${count} |`),
    '',
  ];
  return lines.join('\n');
}

function unknownLine(byCause: Record<string, number>): string {
  const total = Object.values(byCause).reduce((a, b) => a + b, 0);
  if (total === 0) return '0';
  const causes = Object.entries(byCause).map(
    ([cause, count]) =>
      `${count} ${cause === 'killed' ? 'killed after beginEffect' : 'whose commit was refused after beginEffect'}`,
  );
  return `${total} (${causes.join(', ')}), each listed by \`idemkit stuck\``;
}

function round(value: number, digits: number): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}

function sortedRecord(record: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => a.localeCompare(b)));
}

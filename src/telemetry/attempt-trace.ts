import type { MetricName } from './metric-names.js';

/** `idempotency_status` values of the per-attempt log line. */
export type AttemptStatus =
  | 'new'
  | 'replay'
  | 'in_progress'
  | 'mismatch'
  | 'expired'
  | 'recovered'
  | 'unknown'
  | 'released'
  | 'missing_key'
  | 'invalid_key'
  | 'conflict'
  | 'lease_lost'
  | 'journal_unavailable';

/** What happened during one guarded attempt, filled in by the engine and the entry point. */
export interface AttemptTrace {
  status?: AttemptStatus;
  attempt?: number;
  journalCalls: number;
  readonly metrics: MetricName[];
  downstreamReference?: string;
  /** During a migration: what the previous library's record decided (`replay`, `in-progress`, `mismatch`) or why it did not. */
  legacy?: string;
  /** Set when the completion write failed after the handler ran and its response was returned unstored. */
  journalError?: Error;
  /** Set when the attempt failed after its handler ran for a reason of the handler's (a staged write refused). */
  failure?: Error;
}

/** A fresh trace. */
export function newTrace(): AttemptTrace {
  return { journalCalls: 0, metrics: [] };
}

import { RecordUnreadableError } from '../core/index.js';
import { JournalGuard, RecordStatus, type JournalRecord } from '../journal/index.js';
import { MetricName, type AttemptStatus } from '../telemetry/index.js';
import { isOwnExecution } from './durable-execution.js';

/**
 * What a record found in an attempt's way means, decided in one place for every path that
 * finds one: the admission (a reservation refused, a poll), the staged-only commit (a
 * transaction refused or cancelled) and the answer after a lost lease. {@link decide} is pure;
 * the attempt applies what it returns, and {@link ATTEMPT_OUTCOMES} says how each outcome is
 * logged and counted. `model/guards.json` ties every decision to the guard of the protocol
 * model that takes the same branch, and a test holds the two together.
 */

/** How the attempt that found the record runs. */
export type AttemptMode = 'leased' | 'staged-only';

/** What {@link decide} weighs besides the record. */
export interface DecisionInput {
  /** The fingerprint of the attempt's request. */
  readonly fingerprint: string;
  readonly nowEpochMs: number;
  readonly mode: AttemptMode;
  /** Whether a `recover` hook decides records whose effect may have happened. */
  readonly recoverHook: boolean;
  /** The Lambda durable execution the attempt runs in, if any: its own record is resumed, not refused. */
  readonly durableExecutionArn?: string;
}

/**
 * What a found record means for the attempt that found it:
 * - `claimable`: nothing holds the key (absent, past its expiry, or, for a staged-only commit,
 *   left by a lease that ended before any effect): reserve or commit again;
 * - `replay`: completed with the same fingerprint: its outcome answers;
 * - `mismatch`: the key was used with another request (422), whatever the record's state;
 * - `in-progress`: another attempt holds a live lease (409, or wait);
 * - `resume`: the durable execution this attempt belongs to holds it: continue under its lease;
 * - `take-over`: its lease ended before any effect: run again under a new token;
 * - `recover`: an effect may have happened and a `recover` hook decides, under a new token;
 * - `review`: an effect may have happened and nobody may decide it but an operator; `abandon`
 *   says the record is still `IN_PROGRESS`, so the attempt marks it `UNKNOWN` first;
 * - `unreadable`: the guard cannot read it: refused, left untouched.
 */
export type Decision =
  | { readonly kind: 'claimable' }
  | { readonly kind: 'replay'; readonly record: JournalRecord }
  | { readonly kind: 'mismatch'; readonly record: JournalRecord }
  | { readonly kind: 'in-progress'; readonly record: JournalRecord }
  | { readonly kind: 'resume'; readonly record: JournalRecord }
  | { readonly kind: 'take-over'; readonly record: JournalRecord }
  | { readonly kind: 'recover'; readonly record: JournalRecord }
  | { readonly kind: 'review'; readonly record: JournalRecord; readonly abandon: boolean }
  | { readonly kind: 'unreadable'; readonly error: RecordUnreadableError };

/** The kinds of {@link Decision}. */
export type DecisionKind = Decision['kind'];

/**
 * Decides what `found` means for an attempt: a record, none (`undefined`), or the error that
 * said it cannot be read.
 *
 * @example
 * const decision = decide(reservation.record, { fingerprint, nowEpochMs: clock(), mode: 'leased', recoverHook: false });
 */
export function decide(found: JournalRecord | RecordUnreadableError | undefined, input: DecisionInput): Decision {
  if (found instanceof RecordUnreadableError) return { kind: 'unreadable', error: found };
  const values = { nowEpochMs: input.nowEpochMs, fingerprint: input.fingerprint };
  const free = input.mode === 'staged-only' ? JournalGuard.stagedCommitClaimable : JournalGuard.claimable;
  if (found === undefined || free(found, values)) return { kind: 'claimable' };
  const record = found;
  if (record.fingerprint !== input.fingerprint) return { kind: 'mismatch', record };
  if (record.status === RecordStatus.completed) return { kind: 'replay', record };
  if (isOwnExecution(record, input.durableExecutionArn, input.nowEpochMs)) return { kind: 'resume', record };
  const leaseEnded = record.leaseUntilEpochMs < input.nowEpochMs;
  // UNKNOWN, or an effect began under a lease that ended: its holder may have vanished after the effect.
  if (record.status === RecordStatus.unknown || (record.effectStarted && leaseEnded)) {
    if (input.mode === 'leased' && input.recoverHook) return { kind: 'recover', record };
    return { kind: 'review', record, abandon: record.status === RecordStatus.inProgress };
  }
  if (record.status === RecordStatus.inProgress && leaseEnded) return { kind: 'take-over', record };
  return { kind: 'in-progress', record };
}

/** What an attempt met, as its log line and metrics show it. */
export type AttemptOutcome =
  | 'new'
  | 'expired'
  | 'replay'
  | 'duplicate'
  | 'mismatch'
  | 'inProgress'
  | 'resumed'
  | 'takenOver'
  | 'markedUnknown'
  | 'foundUnknown'
  | 'released'
  | 'leaseLost'
  | 'conflict'
  | 'journalUnavailable'
  | 'journalThrottled'
  | 'unreadable'
  | 'missingKey'
  | 'invalidKey'
  | 'journalError'
  | 'outboxPublished'
  | 'legacyHit'
  | 'replicatedWriteConflict';

/**
 * The one table of what each outcome writes to the attempt's log line (`idempotency_status`;
 * none: the status stays) and which metrics it counts. `UnknownAfterEffect`, which the
 * dashboard's alarm watches, counts the attempt that turned a record `UNKNOWN`, once: finding
 * a record already `UNKNOWN` counts nothing new.
 */
export const ATTEMPT_OUTCOMES: {
  readonly [O in AttemptOutcome]: { readonly status?: AttemptStatus; readonly metrics: readonly MetricName[] };
} = Object.freeze({
  new: { status: 'new', metrics: [MetricName.newRequest] },
  expired: { status: 'expired', metrics: [MetricName.newRequest, MetricName.expiredKeyRetry] },
  replay: { status: 'replay', metrics: [MetricName.replay] },
  duplicate: { status: 'replay', metrics: [MetricName.duplicateSuppressed] },
  mismatch: { status: 'mismatch', metrics: [MetricName.payloadMismatch] },
  inProgress: { status: 'in_progress', metrics: [MetricName.inProgressCollision] },
  resumed: { status: 'resumed', metrics: [] },
  takenOver: { status: 'recovered', metrics: [MetricName.leaseTakeover] },
  markedUnknown: { status: 'unknown', metrics: [MetricName.unknownAfterEffect] },
  foundUnknown: { status: 'unknown', metrics: [] },
  released: { status: 'released', metrics: [MetricName.released] },
  leaseLost: { status: 'lease_lost', metrics: [] },
  conflict: { status: 'conflict', metrics: [MetricName.commitConflict] },
  journalUnavailable: { status: 'journal_unavailable', metrics: [MetricName.journalError] },
  // `JournalThrottled` is counted once per attempt, for every throttle it met (AttemptLog.noteThrottles).
  journalThrottled: { status: 'journal_throttled', metrics: [] },
  unreadable: { status: 'record_unreadable', metrics: [MetricName.journalError] },
  missingKey: { status: 'missing_key', metrics: [] },
  invalidKey: { status: 'invalid_key', metrics: [] },
  journalError: { metrics: [MetricName.journalError] },
  outboxPublished: { metrics: [MetricName.outboxPublished] },
  legacyHit: { metrics: [MetricName.legacyHit] },
  replicatedWriteConflict: { metrics: [MetricName.replicatedWriteConflict] },
});

/** A read that found a record the guard cannot read hands the error to {@link decide}, which refuses it. */
export function unreadableAsFound(error: unknown): RecordUnreadableError {
  if (error instanceof RecordUnreadableError) return error;
  throw error;
}

import { InProgressError, PayloadMismatchError } from '../core/index.js';
import type { Admission, ExecutorHost } from './attempt-executor.js';
import type { AttemptOutcome } from './decision.js';
import type { LegacyDecision } from './guard-options.js';
import type { AttemptScope } from './scope.js';

/**
 * The previous library's records during a migration (`migrateFrom`): what it holds for a request
 * this guard has just reserved answers instead of the handler. The lookup itself (reading and
 * deciding the old record as that library would) lives with the migration source; this is what
 * the attempt does with its answer.
 */

/** What the migration lookup needs of the attempt: its journal, settings and log, and how it answers. */
export interface LegacyAdmissionHost extends Pick<
  ExecutorHost,
  'journal' | 'settings' | 'log' | 'replayOutcome' | 'release' | 'answerWithStored'
> {
  /** Refuses the attempt with `error`, counted as `outcome`. */
  refuse(outcome: AttemptOutcome, error: unknown): Admission;
}

/**
 * During a migration, what the previous library holds for a freshly reserved request answers
 * instead of the handler: its completed outcome completes this record and is replayed; a live
 * execution or another payload releases the reservation and answers 409 or 422. Undefined when
 * there is no migration, or the previous library holds nothing for the request: the handler runs.
 *
 * @param reservation the scope of the fresh reservation, held by the attempt
 * @param legacyEvent the event as the previous library saw it
 */
export async function consultLegacy(
  attempt: LegacyAdmissionHost,
  reservation: AttemptScope,
  legacyEvent: unknown,
): Promise<Admission | undefined> {
  const { legacyLookup, retryAfterSeconds } = attempt.settings;
  if (!legacyLookup) return undefined;
  let decision: LegacyDecision;
  try {
    decision = await legacyLookup(legacyEvent, () => attempt.journal.calls++);
  } catch (error) {
    // Fail closed: without the old record nobody can vouch that the request did not already run.
    await releaseReservation(attempt, reservation);
    throw error;
  }
  attempt.log.trace.legacy = decision.kind === 'none' ? decision.reason : decision.kind;
  if (decision.kind === 'none') return undefined;
  attempt.log.note('legacyHit');
  if (decision.kind === 'replay') {
    const admission = await attempt.answerWithStored(decision.response);
    attempt.log.note(attempt.replayOutcome);
    return admission;
  }
  await releaseReservation(attempt, reservation);
  if (decision.kind === 'mismatch') return attempt.refuse('mismatch', new PayloadMismatchError());
  return attempt.refuse('inProgress', new InProgressError(retryAfterSeconds));
}

/** Gives back a reservation no handler ran under; a failure leaves it to its lease, like a crash. */
async function releaseReservation(attempt: LegacyAdmissionHost, { pk, leaseToken }: AttemptScope): Promise<void> {
  attempt.release();
  await attempt.journal.release(pk, leaseToken).catch(() => attempt.log.note('journalError'));
}

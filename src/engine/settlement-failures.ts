import {
  JournalError,
  JournalUnavailableError,
  LeaseLostError,
  RecordUnreadableError,
  UniqueConflictError,
  WriteConflictError,
} from '../core/index.js';
import { RecordStatus } from '../journal/index.js';
import type { AttemptExecutor, RunResult } from './attempt-executor.js';
import type { AttemptLog } from './attempt-log.js';
import type { CountedJournal } from './counted-journal.js';
import { unreadableAsFound } from './decision.js';
import type { Settlement } from './settlement.js';

/** What a running attempt's {@link SettlementFailures} works with besides its settlement. */
export interface SettlementFailuresInit {
  /** The attempt's view of the journal (calls counted): a lost lease reads the record again through it. */
  readonly journal: CountedJournal;
  /** The attempt's log: the one place its status and metrics are written. */
  readonly log: AttemptLog;
  /** Carries out what the record found after a lost lease says. */
  readonly executor: AttemptExecutor;
}

/**
 * What a settlement that did not store the outcome means for the attempt's answer, its log line and
 * its metrics. A {@link Settlement} writes and reports, or throws the journal's error; this is where
 * such an error (a lost lease, a conflict, an unreadable record, the journal out of reach) and a
 * record let go are counted and turned into the attempt's answer, one instance per running attempt.
 */
export class SettlementFailures {
  constructor(
    /** The settlement of the running attempt. */
    readonly settlement: Settlement,
    private readonly init: SettlementFailuresInit,
  ) {}

  /** Lets the record go without an outcome, and counts how; a lost lease leaves it to its new owner. */
  async letGo(): Promise<void> {
    const { log } = this.init;
    try {
      const { markedUnknown, claimsLeft } = await this.settlement.letGo();
      if (claimsLeft) log.note('journalError');
      log.note(markedUnknown ? 'markedUnknown' : 'released');
    } catch (error) {
      if (error instanceof LeaseLostError) return log.note('leaseLost');
      if (error instanceof RecordUnreadableError) return log.noteUnreadable(error);
      // The lease resolves it like a crash would: the error that made us let go matters more.
      // Throttle hook: a throttled release or mark counts as throttled, not as the journal unavailable.
      log.noteLetGoFailure(error);
    }
  }

  /**
   * What a store that threw answers: where a journal error met while settling becomes an answer. `answer`
   * is the handler's own, which stands when nothing else was to commit with it.
   */
  async storeFailed(error: unknown, answer: RunResult): Promise<RunResult> {
    const { log } = this.init;
    if (error instanceof LeaseLostError) return this.afterLeaseLost(error);
    if (error instanceof RecordUnreadableError) {
      // The record changed into something the guard cannot read: it is left as it is for an operator.
      log.noteUnreadable(error);
      throw error;
    }
    if (error instanceof UniqueConflictError || error instanceof WriteConflictError) return this.conflicted(error);
    if (!(error instanceof JournalUnavailableError)) {
      // Not the journal's failure (a staged write refused on its own table, say): the handler's, so the record goes.
      log.trace.failure = error as Error;
      await this.letGo();
      throw error;
    }
    if (!this.settlement.answersUncommitted) {
      // Nothing committed: the caller must retry, and the lease (or the free key) will let that retry in.
      log.noteUnavailable(error);
      throw error;
    }
    // Throttle hook: a throttled completion is counted as `JournalThrottled` (in finish), not as `JournalError`.
    log.noteUnstored(error);
    log.trace.journalError = new JournalError('The completion write failed; the lease will resolve the record', {
      cause: error,
    });
    return answer;
  }

  /** Lets the record go after a conflict nothing of this attempt committed, and throws the conflict. */
  async conflicted(error: UniqueConflictError | WriteConflictError): Promise<never> {
    const { log } = this.init;
    try {
      const { claimsLeft } = await this.settlement.letGo();
      if (claimsLeft) log.note('journalError');
    } catch {
      log.note('journalError');
    }
    log.note('conflict');
    throw error;
  }

  /** The stored outcome of the attempt that took over, never this attempt's own. */
  async afterLeaseLost(error: LeaseLostError): Promise<RunResult> {
    const { journal, log, executor } = this.init;
    const { scope } = this.settlement;
    log.note('leaseLost');
    const stored = error.existing;
    const found =
      stored?.status === RecordStatus.completed && stored.response
        ? stored
        : await journal.get(scope.pk).catch(unreadableAsFound);
    return executor.carryOut(executor.decisionOn(found, scope.fingerprint), 'lease-lost');
  }
}

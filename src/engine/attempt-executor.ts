import {
  InProgressError,
  LeaseLostError,
  NeedsReviewError,
  PayloadMismatchError,
  RecordUnreadableError,
} from '../core/index.js';
import type { JournalRecord } from '../journal/index.js';
import { actionFor, type ActionOf, type AttemptPhase } from './attempt-actions.js';
import type { AttemptLog } from './attempt-log.js';
import type { CountedJournal } from './counted-journal.js';
import { decide, type AttemptOutcome, type Decision } from './decision.js';
import type { DurableExecution } from './durable-execution.js';
import type { EngineSettings, RecoveryDecision } from './guard-options.js';
import { inProgressRetryAfterSeconds } from './lease-memory.js';
import { rememberOutcome } from './outcome-cache.js';
import type { AttemptScope } from './scope.js';
import { assertStoredResponse, isNotStoredMarker } from './stored-outcome.js';

/**
 * The executor: what the table of attempt-actions.ts says of a decision, carried out. The table
 * states what each action means; this file states how it is done (the journal writes, the answer,
 * what is counted), and the attempt that owns the executor lends it the few things only the attempt
 * can do ({@link ExecutorHost}). The executor keeps no state of its own.
 */

/** What an attempt meets before its handler runs. */
export type Admission =
  | { readonly kind: 'refused'; readonly error: unknown }
  | { readonly kind: 'replay'; readonly response: unknown }
  | RunAdmission;

/** An attempt admitted to run its handler, with the scope it runs with. */
export type RunAdmission = { readonly kind: 'run'; readonly scope: AttemptScope };

/** The answer of an attempt, once its handler ended. */
export type RunResult =
  | {
      /**
       * `ran`: this attempt's handler ran; `replayed`: an earlier outcome answers; `superseded`: another attempt's
       * outcome answers.
       */
      readonly kind: 'ran' | 'replayed' | 'superseded';
      readonly response: unknown;
    }
  | {
      /**
       * The handler's own error stands and travels on: the record was released (or marked `UNKNOWN`), or, when
       * `interrupted`, the invocation ended before the handler settled and the record stays held.
       */
      readonly kind: 'failed';
      readonly error: unknown;
      readonly interrupted: boolean;
    };

/**
 * What the admission does next when an action did not settle it: reserve again (the key is free
 * since the write that was refused), read again (a write of ours lost to a change: decide anew on
 * what it wrote), or wait for a live lease and read again.
 */
export type NextStep = 'reserve-again' | 'read-again' | 'wait';

/**
 * What the executor needs of the attempt it acts for: the attempt's journal, settings and log, and
 * the steps that change the attempt's own state (holding a record, settling, unbinding its scope).
 */
export interface ExecutorHost {
  /** The attempt's view of the journal (calls counted). */
  readonly journal: CountedJournal;
  /** The guard's settings: the recover hook, the clock, the `Retry-After` and the outcome cache the executor reads. */
  readonly settings: EngineSettings;
  /** The attempt's log: the one place its status and metrics are written. */
  readonly log: AttemptLog;
  /** The Lambda durable execution the attempt runs in, if any: a takeover records it, a decision resumes it. */
  readonly durable?: DurableExecution;
  /** How a replay counts: `replay`, or `duplicate` for a queue's message. */
  readonly replayOutcome: AttemptOutcome;
  /** The record's key, named to `assertReplayable`. */
  recordPk(): string;
  /** The lease a takeover asks for, in milliseconds. */
  leaseMs(): number;
  /** Admits the attempt to run under the lease of `record`, its scope bound to the context. */
  hold(record: JournalRecord, recovering: boolean): RunAdmission;
  /** Completes the held record with an outcome handed back, and answers with it. */
  answerWithStored(response: unknown): Promise<Admission>;
  /** Lets the held record go without an outcome, and counts how. */
  letGo(): Promise<void>;
  /** Unbinds the attempt's scope from the context: it stops answering `idempotencyOf(context)`. */
  release(): void;
}

/**
 * Carries out what {@link actionFor} says of the decisions an attempt meets, for the attempt in
 * `host`; it alone turns a decision into an answer, a journal write or a refusal.
 */
export class AttemptExecutor {
  constructor(private readonly host: ExecutorHost) {}

  /** What `found` means for the attempt's request of `fingerprint`: the attempt always holds a lease when it asks. */
  decisionOn(found: JournalRecord | RecordUnreadableError | undefined, fingerprint: string): Decision {
    const { settings, durable } = this.host;
    return decide(found, {
      fingerprint,
      nowEpochMs: settings.clock(),
      mode: 'leased',
      recoverHook: settings.recover !== undefined,
      durableExecutionArn: durable?.executionArn,
    });
  }

  /**
   * Carries out what {@link actionFor} says of a decision met in `phase` (see attempt-actions.ts for
   * what each action means). At admission it may answer with the {@link NextStep} instead.
   */
  async carryOut(decision: Decision, phase: 'admission'): Promise<Admission | NextStep>;
  async carryOut(decision: Decision, phase: 'commit' | 'lease-lost'): Promise<RunResult>;
  async carryOut(decision: Decision, phase: AttemptPhase): Promise<Admission | RunResult | NextStep> {
    // The log line names the attempt a refusal met; a replay is not an attempt of its own.
    if ('record' in decision && decision.kind !== 'replay') this.host.log.trace.attempt = decision.record.attempt;
    const action = actionFor(decision.kind, phase);
    // The table gives an action on a record only to decisions that carry one (attempt-actions.test.ts).
    const record = 'record' in decision ? decision.record : undefined;
    switch (action.kind) {
      case 'reserve-again':
      case 'wait':
        return action.kind;
      case 'resume':
        // A replay of the execution holding the record: its own lease, not a duplicate's 409.
        this.host.log.note('resumed');
        return this.host.hold(record!, false);
      case 'take-over':
      case 'recover':
        return this.takeOver(record!, action.kind === 'recover');
      case 'replay':
        rememberOutcome(this.host.settings, record!); // [hot-keys hook]
        return this.replayOf(record!.response?.value);
      case 'supersede':
        return this.supersede(record!, action.counted);
      case 'mark-for-review':
        return this.markForReview(decision, action);
      case 'refuse':
        throw this.refusal(decision, action);
    }
  }

  /** Answers with a stored outcome, counted as a replay (or, for a queue, a suppressed duplicate). */
  replayOf(response: unknown): Admission {
    this.assertReplayable(response);
    this.host.log.note(this.host.replayOutcome);
    this.host.release();
    assertStoredResponse(response);
    return { kind: 'replay', response };
  }

  /** The 409 of a decision: its `Retry-After` never asks to come back after the refusing lease may have ended. */
  inProgressError(decision: Decision): InProgressError {
    const record = 'record' in decision ? decision.record : undefined;
    const { settings } = this.host;
    // [hot-keys hook] an in-progress answer (from the journal or the lease memory) never asks to come back after the
    // lease that refuses may have ended.
    const retryAfterSeconds = inProgressRetryAfterSeconds(record, settings.retryAfterSeconds, settings.clock());
    return new InProgressError(retryAfterSeconds, record);
  }

  /** Answers with the stored outcome of another attempt, instead of this attempt's own. */
  private supersede(record: JournalRecord, counted: boolean): RunResult {
    const response = record.response?.value;
    rememberOutcome(this.host.settings, record); // [hot-keys hook]
    if (counted) this.host.log.note(this.host.replayOutcome);
    this.assertReplayable(response);
    assertStoredResponse(response);
    return { kind: 'superseded', response };
  }

  /** Marks an abandoned record `UNKNOWN` for an operator, fenced on the token read, and refuses. */
  private async markForReview(decision: Decision, { whenRaced }: ActionOf<'mark-for-review'>): Promise<NextStep> {
    // The table marks for review only what decide() sent for review.
    const { record, abandon } = decision as Extract<Decision, { kind: 'review' }>;
    let marked = false;
    if (abandon) {
      marked = await this.host.journal.markAbandonedUnknown(record.pk, record.leaseToken).then(
        () => true,
        (error: unknown) => {
          if (error instanceof LeaseLostError) return false;
          throw error;
        },
      );
      if (!marked && whenRaced === 'read-again') return 'read-again';
    }
    this.host.log.note(marked ? 'markedUnknown' : 'foundUnknown');
    throw new NeedsReviewError(record);
  }

  /** The typed error of a refusal, counted when the table says so. */
  private refusal(decision: Decision, action: ActionOf<'refuse'>): unknown {
    const record = 'record' in decision ? decision.record : undefined;
    const { log } = this.host;
    switch (action.refusal) {
      case 'unreadable': {
        const { error } = decision as Extract<Decision, { kind: 'unreadable' }>;
        log.noteUnreadable(error);
        return error;
      }
      case 'mismatch':
        if (action.counted) log.note('mismatch');
        return new PayloadMismatchError(record);
      case 'needs-review':
        if (action.counted) log.note('foundUnknown');
        return new NeedsReviewError(record!);
      case 'in-progress':
        if (action.counted) log.note('inProgress');
        return this.inProgressError(decision);
    }
  }

  private async takeOver(record: JournalRecord, recovering: boolean): Promise<Admission | NextStep> {
    const { host } = this;
    let taken: JournalRecord;
    try {
      taken = await host.journal.takeOver({
        pk: record.pk,
        expectedToken: record.leaseToken,
        leaseMs: host.leaseMs(),
        durableExecutionArn: host.durable?.executionArn,
      });
    } catch (error) {
      if (!(error instanceof LeaseLostError)) throw error;
      return 'read-again';
    }
    host.log.note('takenOver');
    // The record read showed no effect, but its holder may have begun one before this takeover landed
    // (beginEffect is fenced on the token, not on the lease's end): the record taken decides, so an
    // effect that may have happened is never run again as new work.
    const effectMayHaveHappened = recovering || taken.effectStarted;
    const admission = host.hold(taken, effectMayHaveHappened);
    if (!effectMayHaveHappened) return admission;
    return this.decideRecovery(recovering ? record : taken, admission);
  }

  /**
   * Decides a record whose effect may have happened, under the lease this attempt has just taken
   * (`held`): the `recover` hook answers, or, without one, the record is marked `UNKNOWN` for an operator.
   */
  private async decideRecovery(record: JournalRecord, held: RunAdmission): Promise<Admission> {
    const { host } = this;
    const { recover } = host.settings;
    if (recover) {
      let decision: RecoveryDecision;
      try {
        decision = await recover(held.scope);
      } catch (error) {
        await host.letGo();
        throw error;
      }
      if (decision.outcome === 'rerun') return held;
      if (decision.outcome === 'completed') return host.answerWithStored(decision.response);
    }
    await host.journal.markUnknown(record.pk, held.scope.leaseToken);
    host.log.note('markedUnknown');
    throw new NeedsReviewError(record);
  }

  /** Refuses a stored outcome the entry point cannot answer with (an HTTP response without a status, say). */
  private assertReplayable(response: unknown): void {
    if (isNotStoredMarker(response)) return;
    try {
      this.host.settings.assertReplayable?.(response, this.host.recordPk());
    } catch (error) {
      if (error instanceof RecordUnreadableError) this.host.log.noteUnreadable(error);
      throw error;
    }
  }
}

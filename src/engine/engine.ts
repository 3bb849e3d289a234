import { JournalUnavailableError, LeaseLostError, NeedsReviewError, RecordUnreadableError } from '../core/index.js';
import { isClaimable, needsRecovery, RecordStatus, type JournalRecord } from '../journal/index.js';
import { MetricName, type AttemptStatus, type Telemetry } from '../telemetry/index.js';
import {
  Attempt,
  type AttemptRequest,
  type HandlerOutcome,
  type LambdaContextLike,
  type RunResult,
} from './attempt.js';
import { assertLeasedForDurable, durableLeaseMs, isOwnExecution } from './durable-execution.js';
import type { EngineSettings, LegacyDecision, RecoveryDecision } from './guard-options.js';

const DEFAULT_LEASE_MS = 30_000;
const LEASE_GRACE_MS = 1_000;
const POLL_INTERVAL_MS = 100;
const MAX_RACES = 3;
/** A conditional write lost to another attempt: the caller reads the record again and decides anew. */
const RACED = Symbol('raced');

/** The handler side of {@link IdempotencyEngine.run}. */
export interface GuardedHandler {
  /** Runs the handler with the attempt's own context (its scope bound). */
  invoke(context: LambdaContextLike): Promise<unknown>;
  /** What of the handler's result is stored, and whether it is stored at all. */
  outcomeOf(result: unknown): HandlerOutcome;
  /** Hears of an attempt that ends in an error, before it is thrown. */
  onFailed?(error: unknown, status: AttemptStatus | undefined): void;
}

/**
 * The one owner of every guarded attempt, whatever the entry point: it checks the key, binds
 * the scope, decides what the attempt meets (new, replay, mismatch, in progress, takeover,
 * recovery), settles or abandons it with fenced writes, answers a lost lease with the stored
 * outcome, and writes the attempt's status, metrics and log line. Entry points only translate
 * their event into an {@link AttemptRequest} and the result into their answer.
 */
export class IdempotencyEngine {
  constructor(
    readonly settings: EngineSettings,
    private readonly telemetry: Telemetry,
  ) {
    if (settings.tracer) settings.journal.traceWith?.(settings.tracer);
  }

  /**
   * Starts an attempt and admits it. Never throws for a guard situation: the attempt's
   * `admission` says whether it was refused (with the typed error), is a replay, or runs.
   * A running attempt's scope is bound to `context` until it is settled or failed.
   */
  async begin(request: AttemptRequest, context: LambdaContextLike): Promise<Attempt> {
    const attempt = new Attempt(request, context, this.settings, this.telemetry);
    try {
      const { pk, fingerprint } = attempt.identify();
      await this.admit(attempt, pk, fingerprint);
    } catch (error) {
      if (error instanceof JournalUnavailableError) {
        // Fail closed: the handler does not run when the journal cannot vouch for the key.
        attempt.mark('journal_unavailable', MetricName.journalError);
      } else if (error instanceof RecordUnreadableError) {
        attempt.unreadable(error);
      }
      attempt.refuse(error);
    }
    return attempt;
  }

  /**
   * Runs one attempt from start to answer: `invoke` is called only when the attempt runs, with
   * a context of its own (a guarded function called from a guarded handler keeps the
   * handler's scope apart). Throws the refusal's typed error, or the handler's error after
   * the record was released (or marked `UNKNOWN`); `onFailed` hears of it first, with the
   * attempt's status. An invocation that ended before the handler settled (see
   * {@link Attempt.endsBeforeSettling}) leaves the record held: its outcome is unknown.
   */
  async run(request: AttemptRequest, context: LambdaContextLike, handler: GuardedHandler): Promise<RunResult> {
    const scoped = Object.create(context ?? null) as LambdaContextLike;
    const attempt = await this.begin(request, scoped);
    try {
      const admission = attempt.admission;
      if (admission.kind === 'refused') throw admission.error;
      if (admission.kind === 'replay') return { kind: 'replayed', response: admission.response };
      let result: unknown;
      try {
        result = await handler.invoke(scoped);
      } catch (error) {
        if (attempt.endsBeforeSettling(error)) throw attempt.interrupt(error);
        return await attempt.fail(error);
      }
      return await attempt.complete(handler.outcomeOf(result));
    } catch (error) {
      handler.onFailed?.(error, attempt.trace.status);
      throw error;
    } finally {
      attempt.finish();
    }
  }

  private async admit(attempt: Attempt, pk: string, fingerprint: string): Promise<void> {
    const { localCache, clock } = this.settings;
    const journal = attempt.journal;
    const cached = localCache?.get(pk, clock());
    if (cached) {
      if (cached.fingerprint !== fingerprint) throw attempt.mismatch();
      return attempt.replay(cached.response.value);
    }
    if (attempt.durable) assertLeasedForDurable(this.settings.effects);
    // Nothing to reserve: the handler runs first, and the transaction that commits its writes claims the key.
    if (this.settings.effects === 'staged-only') return attempt.holdStaged(pk, fingerprint);
    const leaseMs = this.leaseMsFor(attempt);
    const remainingMs = attempt.remainingTimeMs?.() ?? Infinity;
    const waitUntil =
      clock() + Math.min(this.settings.inProgress === 'wait' ? this.settings.waitMs : 0, remainingMs - LEASE_GRACE_MS);
    let polled: JournalRecord | undefined;
    let races = 0;
    for (;;) {
      let record = polled;
      if (!record) {
        const reservation = await journal.reserve({
          pk,
          fingerprint,
          leaseMs,
          ttlSeconds: this.settings.ttlSeconds,
          durableExecutionArn: attempt.durable?.executionArn,
        });
        if (reservation.reserved) {
          attempt.hold(reservation.record, false, () => this.leaseMsFor(attempt));
          if (await this.consultLegacy(attempt)) return;
          if (reservation.replacedExpired) attempt.mark('expired', MetricName.newRequest, MetricName.expiredKeyRetry);
          else attempt.mark('new', MetricName.newRequest);
          return;
        }
        record = reservation.record;
      }
      if (record.fingerprint !== fingerprint) throw attempt.mismatch(record);
      if (record.status === RecordStatus.completed) {
        localCache?.remember(record);
        return attempt.replay(record.response?.value);
      }
      // A replay of the execution holding the record: its own lease, not a duplicate's 409.
      if (isOwnExecution(record, attempt.durable, clock()))
        return attempt.resume(record, () => this.leaseMsFor(attempt));
      const leaseExpired = record.leaseUntilEpochMs < clock();
      let outcome: void | typeof RACED | 'waiting' = 'waiting';
      if (needsRecovery(record, clock())) {
        outcome = await this.recoverAfterEffect(attempt, record, leaseMs);
      } else if (leaseExpired) {
        outcome = await this.takeOver(attempt, record, leaseMs, false);
      }
      if (outcome === undefined) return;
      if (outcome === RACED) {
        // Another attempt changed the record between our read and our write: decide again on what it wrote.
        if (++races > MAX_RACES) throw attempt.inProgress(record);
      } else {
        if (clock() + POLL_INTERVAL_MS > waitUntil) throw attempt.inProgress(record);
        await this.settings.sleep(POLL_INTERVAL_MS);
      }
      // Polling reads; only a record that vanished (released) or expired sends us back to reserving.
      polled = await journal.get(pk);
      if (polled && isClaimable(polled, clock())) polled = undefined;
    }
  }

  /**
   * During a migration, what the previous library holds for a freshly reserved request answers
   * instead of the handler: its completed outcome completes this record and is replayed; a live
   * execution or another payload releases the reservation and answers 409 or 422. True when it answered.
   */
  private async consultLegacy(attempt: Attempt): Promise<boolean> {
    const { legacyLookup, storedFormOf } = this.settings;
    if (!legacyLookup) return false;
    let decision: LegacyDecision;
    try {
      decision = await legacyLookup(attempt.request.legacyEvent, () => attempt.journal.calls++);
    } catch (error) {
      // Fail closed: without the old record nobody can vouch that the request did not already run.
      await this.releaseReservation(attempt);
      throw error;
    }
    attempt.trace.legacy = decision.kind === 'none' ? decision.reason : decision.kind;
    if (decision.kind === 'none') return false;
    attempt.trace.metrics.push(MetricName.legacyHit);
    if (decision.kind === 'replay') {
      const response = storedFormOf(decision.response);
      const settled = await attempt.complete({ store: true, response });
      attempt.replay(settled.response);
      return true;
    }
    await this.releaseReservation(attempt);
    throw decision.kind === 'mismatch' ? attempt.mismatch() : attempt.inProgress();
  }

  /** Gives back a reservation no handler ran under; a failure leaves it to its lease, like a crash. */
  private async releaseReservation(attempt: Attempt): Promise<void> {
    const { pk, leaseToken } = attempt.scope;
    try {
      await attempt.journal.release(pk, leaseToken);
    } catch {
      attempt.trace.metrics.push(MetricName.journalError);
    }
  }

  private async recoverAfterEffect(
    attempt: Attempt,
    record: JournalRecord,
    leaseMs: number,
  ): Promise<void | typeof RACED> {
    const { recover } = this.settings;
    if (!recover) {
      if (record.status === RecordStatus.inProgress) {
        try {
          await attempt.journal.markAbandonedUnknown(record.pk, record.leaseToken);
        } catch (error) {
          if (error instanceof LeaseLostError) return RACED;
          throw error;
        }
        attempt.mark('unknown', MetricName.unknownAfterEffect);
      } else {
        attempt.mark('unknown');
      }
      throw new NeedsReviewError(record);
    }
    return this.takeOver(attempt, record, leaseMs, true);
  }

  private async takeOver(
    attempt: Attempt,
    record: JournalRecord,
    leaseMs: number,
    recovering: boolean,
  ): Promise<void | typeof RACED> {
    let taken: JournalRecord;
    try {
      taken = await attempt.journal.takeOver(record.pk, record.leaseToken, leaseMs, attempt.durable?.executionArn);
    } catch (error) {
      if (!(error instanceof LeaseLostError)) throw error;
      return RACED;
    }
    attempt.mark('recovered', MetricName.leaseTakeover);
    // The record read showed no effect, but its holder may have begun one before this takeover landed
    // (beginEffect is fenced on the token, not on the lease's end): the record taken decides, so an
    // effect that may have happened is never run again as new work.
    const effectMayHaveHappened = recovering || taken.effectStarted;
    attempt.hold(taken, effectMayHaveHappened, () => this.leaseMsFor(attempt));
    if (effectMayHaveHappened) return this.decideRecovery(attempt, recovering ? record : taken);
  }

  /**
   * Decides a record whose effect may have happened, under the lease this attempt has just taken:
   * the `recover` hook answers, or, without one, the record is marked `UNKNOWN` for an operator.
   */
  private async decideRecovery(attempt: Attempt, record: JournalRecord): Promise<void> {
    const { recover } = this.settings;
    if (recover) {
      let decision: RecoveryDecision;
      try {
        decision = await recover(attempt.scope);
      } catch (error) {
        await attempt.abandon();
        throw error;
      }
      if (decision.outcome === 'rerun') return;
      if (decision.outcome === 'completed') {
        const response = this.settings.storedFormOf(decision.response);
        const settled = await attempt.complete({ store: true, response });
        return attempt.answerWith(settled.response);
      }
    }
    await attempt.journal.markUnknown(record.pk, attempt.scope.leaseToken);
    attempt.mark('unknown', MetricName.unknownAfterEffect);
    throw new NeedsReviewError(record);
  }

  /**
   * The lease asked for: a durable execution's whole timeout; else the option, else the Lambda's
   * remaining time plus a grace second, else a default.
   */
  private leaseMsFor(attempt: Attempt): number {
    if (attempt.durable) return durableLeaseMs(this.settings.durableExecutionTimeoutSeconds, LEASE_GRACE_MS);
    if (this.settings.leaseMs !== undefined) return this.settings.leaseMs;
    const remainingMs = attempt.remainingTimeMs?.();
    return remainingMs !== undefined ? remainingMs + LEASE_GRACE_MS : DEFAULT_LEASE_MS;
  }
}

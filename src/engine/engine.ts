import { InProgressError, JournalUnavailableError, LeaseLostError, NeedsReviewError, PayloadMismatchError } from '../errors/index.js';
import { RecordStatus, type JournalRecord } from '../journal/index.js';
import { isClaimable } from '../journal/items.js';
import { MetricName } from '../telemetry/metric-names.js';
import { AttemptScope } from './scope.js';
import type { Admission, AttemptRequest, EngineSettings, RecoveryDecision, Settlement } from './settings.js';
import { Settler } from './settler.js';
import type { AttemptTrace } from './trace.js';
import { assertStoredResponse } from './unstorable.js';

export type { Admission, AttemptRequest, EngineSettings, RecoveryDecision, Settlement } from './settings.js';

const DEFAULT_LEASE_MS = 30_000;
const LEASE_GRACE_MS = 1_000;
const POLL_INTERVAL_MS = 100;
const MAX_RACES = 3;
/** A conditional write lost to another attempt: the caller reads the record again and decides anew. */
const RACED = Symbol('raced');

/**
 * The state machine every entry point shares: decides what an attempt meets (new, replay,
 * mismatch, in progress, takeover, recovery) and settles its outcome with fenced writes.
 */
export class IdempotencyEngine {
  private readonly settler: Settler;

  constructor(readonly settings: EngineSettings) {
    this.settler = new Settler(settings);
  }

  /** Admits an attempt: reserve or replay, or throw the typed error the situation calls for. */
  async admit(request: AttemptRequest, trace: AttemptTrace): Promise<Admission> {
    try {
      return await this.decide(request, trace);
    } catch (error) {
      if (error instanceof JournalUnavailableError) {
        // Fail closed: the handler does not run when the journal cannot vouch for the key.
        trace.status = 'journal_unavailable';
        trace.metrics.push(MetricName.journalError);
      }
      throw error;
    }
  }

  private async decide(request: AttemptRequest, trace: AttemptTrace): Promise<Admission> {
    const { journal, localCache, clock } = this.settings;
    const cached = localCache?.get(request.pk, clock());
    if (cached) {
      if (cached.fingerprint !== request.fingerprint) throw this.mismatch(trace);
      return this.replay(cached.response.value, trace);
    }
    const leaseMs = this.leaseMsFor(request);
    const waitUntil = clock() + Math.min(this.settings.inProgress === 'wait' ? this.settings.waitMs : 0, (request.remainingTimeMs?.() ?? Infinity) - LEASE_GRACE_MS);
    let polled: JournalRecord | undefined;
    let races = 0;
    for (;;) {
      let record = polled;
      if (!record) {
        trace.journalCalls++;
        const reservation = await journal.reserve({ pk: request.pk, fingerprint: request.fingerprint, leaseMs, ttlSeconds: this.settings.ttlSeconds });
        if (reservation.reserved) {
          trace.status = reservation.replacedExpired ? 'expired' : 'new';
          trace.metrics.push(MetricName.newRequest);
          if (reservation.replacedExpired) trace.metrics.push(MetricName.expiredKeyRetry);
          return { kind: 'run', scope: this.scopeFor(reservation.record, request, false, trace) };
        }
        record = reservation.record;
      }
      if (record.fingerprint !== request.fingerprint) throw this.mismatch(trace, record);
      if (record.status === RecordStatus.completed) {
        localCache?.remember(record);
        return this.replay(record.response?.value, trace);
      }
      const leaseExpired = record.leaseUntilEpochMs < clock();
      let admission: Admission | typeof RACED | undefined;
      if (record.status === RecordStatus.unknown || (leaseExpired && record.effectStarted)) admission = await this.recoverAfterEffect(record, request, leaseMs, trace);
      else if (leaseExpired) admission = await this.takeOver(record, request, leaseMs, false, trace);
      if (admission !== undefined && admission !== RACED) return admission;
      if (admission === RACED) {
        // Another attempt changed the record between our read and our write: decide again on what it wrote.
        if (++races > MAX_RACES) throw this.inProgress(record, trace);
      } else {
        if (clock() + POLL_INTERVAL_MS > waitUntil) throw this.inProgress(record, trace);
        await this.settings.sleep(POLL_INTERVAL_MS);
      }
      // Polling reads; only a record that vanished (released) or expired sends us back to reserving.
      trace.journalCalls++;
      polled = await journal.get(request.pk);
      if (polled && isClaimable(polled, clock())) polled = undefined;
    }
  }

  /**
   * Settles an attempt that ran its handler. `store` false (an error, 5xx, 408, 429)
   * releases the record, or marks it `UNKNOWN` when an effect had begun.
   */
  settle(scope: AttemptScope, outcome: { store: boolean; response: unknown }, trace: AttemptTrace): Promise<Settlement> {
    return this.settler.settle(scope, outcome, trace);
  }

  /** Releases or marks `UNKNOWN` after a failure; a lost lease leaves the record to its new owner. */
  abandon(scope: AttemptScope, trace: AttemptTrace): Promise<void> {
    return this.settler.abandon(scope, trace);
  }

  /** The answer for an attempt whose lease was taken over: the stored outcome, never its own. */
  afterLeaseLost(scope: AttemptScope, error: LeaseLostError, trace: AttemptTrace): Promise<Settlement> {
    return this.settler.afterLeaseLost(scope, error, trace);
  }

  private async recoverAfterEffect(record: JournalRecord, request: AttemptRequest, leaseMs: number, trace: AttemptTrace): Promise<Admission | typeof RACED> {
    const { journal, recover } = this.settings;
    if (!recover) {
      if (record.status === RecordStatus.inProgress) {
        try {
          trace.journalCalls++;
          await journal.markAbandonedUnknown(record.pk, record.leaseToken);
        } catch (error) {
          if (error instanceof LeaseLostError) return RACED;
          throw error;
        }
        trace.metrics.push(MetricName.unknownAfterEffect);
      }
      trace.status = 'unknown';
      throw new NeedsReviewError(record);
    }
    return this.takeOver(record, request, leaseMs, true, trace);
  }

  private async takeOver(record: JournalRecord, request: AttemptRequest, leaseMs: number, recovering: boolean, trace: AttemptTrace): Promise<Admission | typeof RACED> {
    let taken: JournalRecord;
    try {
      trace.journalCalls++;
      taken = await this.settings.journal.takeOver(record.pk, record.leaseToken, leaseMs);
    } catch (error) {
      if (!(error instanceof LeaseLostError)) throw error;
      return RACED;
    }
    trace.status = 'recovered';
    trace.metrics.push(MetricName.leaseTakeover);
    // The record read showed no effect, but its holder may have begun one before this takeover landed:
    // the record taken decides, so an effect that may have happened is never run again as new work.
    const scope = this.scopeFor(taken, request, recovering || taken.effectStarted, trace);
    return scope.recovering ? this.decideRecovery(scope, recovering ? record : taken, trace) : { kind: 'run', scope };
  }

  /**
   * Decides a record whose effect may have happened, under the lease this attempt has just taken:
   * the `recover` hook answers, or, without one, the record is marked `UNKNOWN` for an operator.
   */
  private async decideRecovery(scope: AttemptScope, record: JournalRecord, trace: AttemptTrace): Promise<Admission> {
    const { journal, recover } = this.settings;
    if (recover) {
      let decision: RecoveryDecision;
      try {
        decision = await recover(scope);
      } catch (error) {
        await this.abandon(scope, trace);
        throw error;
      }
      if (decision.outcome === 'rerun') return { kind: 'run', scope };
      if (decision.outcome === 'completed') {
        const response = this.settings.storedFormOf ? this.settings.storedFormOf(decision.response) : decision.response;
        const settled = await this.settle(scope, { store: true, response }, trace);
        return { kind: 'replay', response: settled.response };
      }
    }
    trace.journalCalls++;
    await journal.markUnknown(scope.pk, scope.leaseToken);
    trace.status = 'unknown';
    trace.metrics.push(MetricName.unknownAfterEffect);
    throw new NeedsReviewError(record);
  }

  private scopeFor(record: JournalRecord, request: AttemptRequest, recovering: boolean, trace: AttemptTrace): AttemptScope {
    trace.attempt = record.attempt;
    return new AttemptScope(this.settings.journal, record, request.key, request.scope, recovering, () => this.leaseMsFor(request), this.settings.clock, () => trace.journalCalls++);
  }

  private replay(response: unknown, trace: AttemptTrace): Admission {
    trace.status = 'replay';
    trace.metrics.push(MetricName.replay);
    assertStoredResponse(response);
    return { kind: 'replay', response };
  }

  private mismatch(trace: AttemptTrace, record?: JournalRecord): PayloadMismatchError {
    trace.status = 'mismatch';
    trace.metrics.push(MetricName.payloadMismatch);
    return new PayloadMismatchError(record);
  }

  private inProgress(record: JournalRecord, trace: AttemptTrace): InProgressError {
    trace.status = 'in_progress';
    trace.attempt = record.attempt;
    trace.metrics.push(MetricName.inProgressCollision);
    return new InProgressError(this.settings.retryAfterSeconds, record);
  }

  private leaseMsFor(request: AttemptRequest): number {
    if (this.settings.leaseMs !== undefined) return this.settings.leaseMs;
    return request.remainingTimeMs !== undefined ? request.remainingTimeMs() + LEASE_GRACE_MS : DEFAULT_LEASE_MS;
  }
}

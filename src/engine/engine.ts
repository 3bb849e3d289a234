import { InProgressError, JournalError, ResponseTooLargeError, JournalUnavailableError, LeaseLostError, NeedsReviewError, PayloadMismatchError, UniqueConflictError, WriteConflictError } from '../errors/index.js';
import { RecordStatus, type Journal, type JournalRecord } from '../journal/index.js';
import { isClaimable } from '../journal/items.js';
import { MetricName } from '../telemetry/metric-names.js';
import type { LocalCache } from './local-cache.js';
import { AttemptScope, type IdempotencyScope } from './scope.js';
import type { AttemptTrace } from './trace.js';
import { assertStoredResponse, unstorableMarker } from './unstorable.js';

/** What a `recover` hook decides for a record whose effect may have happened. */
export type RecoveryDecision = { outcome: 'completed'; response: unknown } | { outcome: 'rerun' } | { outcome: 'review' };

/** Settings shared by every entry point, resolved from its options. */
export interface EngineSettings {
  readonly journal: Journal;
  readonly ttlSeconds: number;
  readonly leaseMs?: number;
  readonly inProgress: 'reject' | 'wait';
  readonly waitMs: number;
  readonly retryAfterSeconds: number;
  readonly recover?: (scope: IdempotencyScope) => Promise<RecoveryDecision>;
  /** What an entry point stores of a response a `recover` hook hands back (HTTP keeps only allow-listed headers). */
  readonly storedFormOf?: (response: unknown) => unknown;
  readonly localCache?: LocalCache;
  readonly clock: () => number;
  readonly sleep: (ms: number) => Promise<void>;
}

/** One attempt's identity. */
export interface AttemptRequest {
  readonly pk: string;
  readonly key: string;
  readonly scope: string;
  readonly fingerprint: string;
  /** The Lambda's remaining time now, when there is a context (read again by each heartbeat). */
  readonly remainingTimeMs?: () => number;
}

/** What an attempt meets before its handler runs. */
export type Admission =
  | { readonly kind: 'replay'; readonly response: unknown }
  | { readonly kind: 'run'; readonly scope: AttemptScope };

/** What became of an attempt that ran its handler. */
export type Settlement =
  | { readonly kind: 'stored'; readonly response: unknown }
  | { readonly kind: 'superseded'; readonly response: unknown }
  | { readonly kind: 'not-stored'; readonly response: unknown };

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
  constructor(readonly settings: EngineSettings) {}

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
  async settle(scope: AttemptScope, outcome: { store: boolean; response: unknown }, trace: AttemptTrace): Promise<Settlement> {
    const { journal } = this.settings;
    if (!outcome.store) {
      await this.abandon(scope, trace);
      return { kind: 'not-stored', response: outcome.response };
    }
    const writes = scope.hasWrites ? { staged: scope.staged, uniqueClaims: scope.uniqueClaims, outbox: scope.outbox } : undefined;
    let stored = outcome.response;
    try {
      trace.journalCalls++;
      try {
        await journal.complete(scope.pk, scope.leaseToken, outcome.response, this.settings.ttlSeconds, writes);
      } catch (error) {
        if (!(error instanceof ResponseTooLargeError)) throw error;
        trace.journalCalls++;
        stored = unstorableMarker(error);
        await journal.complete(scope.pk, scope.leaseToken, stored, this.settings.ttlSeconds, writes);
      }
    } catch (error) {
      return this.completionFailed(scope, outcome.response, error, trace);
    }
    for (let i = 0; i < scope.outbox.length; i++) trace.metrics.push(MetricName.outboxPublished);
    this.settings.localCache?.remember({
      pk: scope.pk,
      fingerprint: scope.fingerprint,
      response: { value: stored },
      expiresAtEpochSeconds: Math.floor(this.settings.clock() / 1000) + this.settings.ttlSeconds,
    });
    return { kind: 'stored', response: outcome.response };
  }

  /** Releases or marks `UNKNOWN` after a failure; a lost lease leaves the record to its new owner. */
  async abandon(scope: AttemptScope, trace: AttemptTrace): Promise<void> {
    try {
      trace.journalCalls++;
      if (scope.effectStarted) {
        await this.settings.journal.markUnknown(scope.pk, scope.leaseToken);
        trace.status = 'unknown';
        trace.metrics.push(MetricName.unknownAfterEffect);
      } else {
        await this.settings.journal.release(scope.pk, scope.leaseToken);
        trace.status = 'released';
        trace.metrics.push(MetricName.released);
      }
    } catch (error) {
      if (error instanceof LeaseLostError) {
        trace.status = 'lease_lost';
        return;
      }
      // The lease resolves it like a crash would: the error that made us abandon matters more.
      trace.status = 'journal_unavailable';
      trace.metrics.push(MetricName.journalError);
    }
  }

  private async completionFailed(scope: AttemptScope, response: unknown, error: unknown, trace: AttemptTrace): Promise<Settlement> {
    if (error instanceof LeaseLostError) return this.afterLeaseLost(scope, error, trace);
    if (error instanceof UniqueConflictError || error instanceof WriteConflictError) {
      trace.metrics.push(MetricName.commitConflict);
      await this.releaseAfterConflict(scope, trace);
      trace.status = 'conflict';
      throw error;
    }
    if (!(error instanceof JournalUnavailableError)) {
      // Not a storage failure (a staged item the journal cannot apply, say): the caller's bug surfaces as is.
      await this.abandon(scope, trace);
      throw error;
    }
    trace.metrics.push(MetricName.journalError);
    if (scope.hasWrites) {
      // Nothing committed: the caller must retry, and the lease will let that retry in.
      trace.status = 'journal_unavailable';
      throw error;
    }
    trace.journalError = new JournalError('The completion write failed; the lease will resolve the record', { cause: error });
    return { kind: 'not-stored', response };
  }

  /**
   * The answer for an attempt whose lease was taken over: the stored outcome, never its own.
   * Throws `InProgressError` (or `NeedsReviewError`) while the new owner has not finished.
   */
  async afterLeaseLost(scope: AttemptScope, error: LeaseLostError, trace: AttemptTrace): Promise<Settlement> {
    trace.status = 'lease_lost';
    const stored = error.existing;
    if (stored?.status === RecordStatus.completed && stored.response) return { kind: 'superseded', response: stored.response.value };
    trace.journalCalls++;
    const current = await this.settings.journal.get(scope.pk).catch(() => undefined);
    if (current?.status === RecordStatus.completed && current.response) return { kind: 'superseded', response: current.response.value };
    throw current?.status === RecordStatus.unknown ? new NeedsReviewError(current) : new InProgressError(this.settings.retryAfterSeconds, current);
  }

  private async releaseAfterConflict(scope: AttemptScope, trace: AttemptTrace): Promise<void> {
    const { journal } = this.settings;
    try {
      trace.journalCalls++;
      if (scope.effectStarted) await journal.markUnknown(scope.pk, scope.leaseToken);
      else await journal.release(scope.pk, scope.leaseToken);
    } catch {
      trace.metrics.push(MetricName.journalError);
    }
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
    const admission = await this.takeOver(record, request, leaseMs, true, trace);
    if (admission === RACED || admission.kind !== 'run') return admission;
    const scope = admission.scope;
    let decision: RecoveryDecision;
    try {
      decision = await recover(scope);
    } catch (error) {
      await this.abandon(scope, trace);
      throw error;
    }
    if (decision.outcome === 'rerun') return admission;
    if (decision.outcome === 'completed') {
      const response = this.settings.storedFormOf ? this.settings.storedFormOf(decision.response) : decision.response;
      const settled = await this.settle(scope, { store: true, response }, trace);
      return { kind: 'replay', response: settled.response };
    }
    trace.journalCalls++;
    await journal.markUnknown(scope.pk, scope.leaseToken);
    trace.status = 'unknown';
    trace.metrics.push(MetricName.unknownAfterEffect);
    throw new NeedsReviewError(record);
  }

  private async takeOver(record: JournalRecord, request: AttemptRequest, leaseMs: number, recovering: boolean, trace: AttemptTrace): Promise<Admission | typeof RACED> {
    try {
      trace.journalCalls++;
      const taken = await this.settings.journal.takeOver(record.pk, record.leaseToken, leaseMs);
      trace.status = 'recovered';
      trace.metrics.push(MetricName.leaseTakeover);
      return { kind: 'run', scope: this.scopeFor(taken, request, recovering, trace) };
    } catch (error) {
      if (!(error instanceof LeaseLostError)) throw error;
      return RACED;
    }
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

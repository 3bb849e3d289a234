import { JournalError, JournalUnavailableError, LeaseLostError, NeedsReviewError, InProgressError, ResponseNotSerializableError, UniqueConflictError, WriteConflictError } from '../errors/index.js';
import { RecordStatus } from '../journal/index.js';
import { MetricName } from '../telemetry/metric-names.js';
import type { AttemptScope } from './scope.js';
import type { EngineSettings, Settlement } from './settings.js';
import type { AttemptTrace } from './trace.js';
import { assertStoredResponse, isUnstorableResponse, unstorableMarker, type UnstorableResponseError } from './unstorable.js';

/**
 * The end of an attempt that ran its handler: completion with its queued writes, release,
 * `UNKNOWN` after an effect, and the answers for a lost lease or a refused commit.
 */
export class Settler {
  constructor(private readonly settings: EngineSettings) {}

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
    let unstorable: UnstorableResponseError | undefined;
    try {
      trace.journalCalls++;
      try {
        await journal.complete(scope.pk, scope.leaseToken, outcome.response, this.settings.ttlSeconds, writes);
      } catch (error) {
        if (!isUnstorableResponse(error)) throw error;
        // The handler ran: its writes and the record commit, only the response stays behind.
        unstorable = error;
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
    // A first caller gets what every replay will get; only a response too large to store still reaches it.
    if (unstorable instanceof ResponseNotSerializableError) throw unstorable;
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
      // Not the journal's failure (a staged write refused on its own table, say): the handler's, so the record is let go.
      trace.failure = error as Error;
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
    if (stored?.status === RecordStatus.completed && stored.response) return superseded(stored.response.value);
    trace.journalCalls++;
    const current = await this.settings.journal.get(scope.pk).catch(() => undefined);
    if (current?.status === RecordStatus.completed && current.response) return superseded(current.response.value);
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
}

/** Another attempt's stored outcome, or the error its marker stands for. */
function superseded(response: unknown): Settlement {
  assertStoredResponse(response);
  return { kind: 'superseded', response };
}

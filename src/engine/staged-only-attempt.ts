import {
  InProgressError,
  JournalUnavailableError,
  NeedsReviewError,
  PayloadMismatchError,
  ResponseTooLargeError,
  StagedOnlyError,
  UniqueConflictError,
  WriteConflictError,
} from '../errors/index.js';
import { RecordStatus, type Evidence, type JournalRecord, type StagedCommit, type StagedCommitResult } from '../journal/index.js';
import { isClaimableByCommit } from '../journal/staged-commit.js';
import { isExpired, newLeaseToken } from '../journal/items.js';
import { MetricName } from '../telemetry/metric-names.js';
import { AttemptScope } from './scope.js';
import type { AttemptRequest, EngineSettings } from './settings.js';
import type { AttemptTrace } from './trace.js';
import { assertStoredResponse, unstorableMarker } from './unstorable.js';

/** How often a commit cancelled by a concurrent transaction is read and decided again before the attempt answers 503. */
const MAX_COMMIT_RACES = 3;
/** Upper bound of the first jittered pause after a cancelled commit, in milliseconds; it doubles per race. */
const RACE_PAUSE_MS = 10;

/** What the handler of a staged-only attempt produced, as its entry point judged it. */
export interface HandlerOutcome {
  /** False for an outcome that is not stored (5xx, 408, 429): nothing is written. */
  readonly store: boolean;
  /** The stored form of the outcome (what replays return). */
  readonly response: unknown;
}

/**
 * The end of a staged-only attempt. `committed` and `not-stored` keep the handler's own answer;
 * `replay` carries the stored outcome of the run that committed.
 */
export type StagedOnlyOutcome = { readonly kind: 'committed' } | { readonly kind: 'not-stored' } | { readonly kind: 'replay'; readonly response: unknown };

/** Runs the handler of a staged-only attempt with its scope (the entry point binds it to the context). */
export type StagedOnlyInvoke = (scope: AttemptScope) => Promise<HandlerOutcome>;

/**
 * The scope of a staged-only attempt: it queues writes like a leased scope does, but holds no
 * lease, so the lease operations reject. Ids derive from when the attempt began; only the
 * run that commits keeps them.
 */
class StagedOnlyScope extends AttemptScope {
  override async beginEffect(): Promise<void> {
    throw new StagedOnlyError('beginEffect');
  }

  override async recordEvidence(_refs: Evidence): Promise<void> {
    throw new StagedOnlyError('recordEvidence');
  }

  override async heartbeat(): Promise<void> {
    throw new StagedOnlyError('heartbeat');
  }
}

/**
 * One attempt under `effects: 'staged-only'`: the handler runs first, then one
 * `TransactWriteItems` commits its staged writes, claims and outbox events with the
 * `COMPLETED` record, conditioned on the record being absent or claimable. When the record's
 * condition fails, the record found decides (replay, 422, 409); a concurrent commit is read
 * and decided again. The entry points only translate events to requests and this outcome to
 * answers.
 */
export class StagedOnlyAttempts {
  constructor(private readonly settings: EngineSettings) {}

  /**
   * Runs one attempt. Throws the typed error the situation calls for (`PayloadMismatchError`,
   * `InProgressError`, `NeedsReviewError`, `WriteConflictError`, `UniqueConflictError`,
   * `JournalUnavailableError`, `ResponseTooLargeError` for a stored marker), or the handler's own error.
   */
  async run(request: AttemptRequest, invoke: StagedOnlyInvoke, trace: AttemptTrace): Promise<StagedOnlyOutcome> {
    const { localCache, clock } = this.settings;
    const cached = localCache?.get(request.pk, clock());
    if (cached) return this.decide({ ...cached, status: RecordStatus.completed, attempt: 1 }, request, trace);
    const scope = this.scopeFor(request);
    trace.attempt = 1;
    let outcome: HandlerOutcome;
    try {
      outcome = await invoke(scope);
    } catch (error) {
      this.released(trace);
      throw error;
    }
    if (!outcome.store) {
      this.released(trace);
      return { kind: 'not-stored' };
    }
    return this.commit(scope, request, outcome.response, trace);
  }

  private async commit(scope: AttemptScope, request: AttemptRequest, response: unknown, trace: AttemptTrace): Promise<StagedOnlyOutcome> {
    const { clock } = this.settings;
    let over: StagedCommit['over'] = 'absent';
    let replaced: JournalRecord | undefined;
    for (let races = 0; ; ) {
      let stored = response;
      let result: StagedCommitResult;
      try {
        result = await this.send(scope, stored, over, trace).catch((error: unknown) => {
          if (!(error instanceof ResponseTooLargeError)) throw error;
          // Refused before anything was sent: the writes and the record commit, and replays say why they cannot answer.
          stored = unstorableMarker(error);
          return this.send(scope, stored, over, trace);
        });
      } catch (error) {
        throw this.failed(error, trace);
      }
      let found: JournalRecord | undefined;
      if (result.kind === 'committed') return this.committed(scope, stored, replaced, trace);
      if (result.kind === 'refused') {
        found = result.record;
      } else {
        // Cancelled by a concurrent transaction: once it has landed, the record it wrote decides.
        if (++races > MAX_COMMIT_RACES) throw this.failed(new JournalUnavailableError(`The commit met a concurrent transaction ${races} times`), trace);
        await this.settings.sleep(Math.random() * RACE_PAUSE_MS * 2 ** races);
        found = await this.read(request.pk, trace);
        // An SDK resend of ours, cancelled by our own commit still in flight: the record is ours.
        if (found?.leaseToken === scope.leaseToken) return this.committed(scope, stored, replaced, trace);
      }
      if (!found) continue;
      // Past its expiresAt, or left by a leased attempt before any effect: commit again, over that record only.
      if (!isClaimableByCommit(found, clock())) return this.decide(found, request, trace);
      // Refused over a record it judged claimable: another attempt changed it in between, which is a race too.
      if (over === 'claimable' && result.kind === 'refused' && ++races > MAX_COMMIT_RACES) throw this.failed(new JournalUnavailableError('The commit kept meeting changed records'), trace);
      over = 'claimable';
      replaced = found;
    }
  }

  private committed(scope: AttemptScope, stored: unknown, replaced: JournalRecord | undefined, trace: AttemptTrace): StagedOnlyOutcome {
    const { clock, ttlSeconds, localCache } = this.settings;
    trace.metrics.push(MetricName.newRequest);
    if (!replaced) trace.status = 'new';
    else if (isExpired(replaced.expiresAtEpochSeconds, clock())) {
      trace.status = 'expired';
      trace.metrics.push(MetricName.expiredKeyRetry);
    } else {
      trace.status = 'recovered';
      trace.metrics.push(MetricName.leaseTakeover);
    }
    for (let i = 0; i < scope.outbox.length; i++) trace.metrics.push(MetricName.outboxPublished);
    localCache?.remember({ pk: scope.pk, fingerprint: scope.fingerprint, response: { value: stored }, expiresAtEpochSeconds: Math.floor(clock() / 1000) + ttlSeconds });
    return { kind: 'committed' };
  }

  private async read(pk: string, trace: AttemptTrace): Promise<JournalRecord | undefined> {
    trace.journalCalls++;
    try {
      return await this.settings.journal.get(pk);
    } catch (error) {
      throw this.failed(error, trace);
    }
  }

  private send(scope: AttemptScope, response: unknown, over: StagedCommit['over'], trace: AttemptTrace): Promise<StagedCommitResult> {
    const { journal, ttlSeconds } = this.settings;
    trace.journalCalls++;
    return journal.commitStaged({
      pk: scope.pk,
      fingerprint: scope.fingerprint,
      commitToken: scope.leaseToken,
      createdAtEpochMs: scope.createdAtEpochMs,
      response,
      ttlSeconds,
      writes: { staged: scope.staged, uniqueClaims: scope.uniqueClaims, outbox: scope.outbox },
      over,
    });
  }

  /** What a record this attempt could not claim means for it: a mismatch wins over every state. */
  private decide(record: Pick<JournalRecord, 'fingerprint' | 'status' | 'attempt' | 'response'> & Partial<JournalRecord>, request: AttemptRequest, trace: AttemptTrace): StagedOnlyOutcome {
    trace.attempt = record.attempt;
    if (record.fingerprint !== request.fingerprint) {
      trace.status = 'mismatch';
      trace.metrics.push(MetricName.payloadMismatch);
      throw new PayloadMismatchError(record as JournalRecord);
    }
    if (record.status === RecordStatus.completed) {
      if (record.pk) this.settings.localCache?.remember(record as JournalRecord);
      trace.status = 'replay';
      trace.metrics.push(MetricName.replay);
      assertStoredResponse(record.response?.value);
      return { kind: 'replay', response: record.response?.value };
    }
    const leaseExpired = (record.leaseUntilEpochMs ?? 0) < this.settings.clock();
    if (record.status === RecordStatus.unknown || (record.effectStarted && leaseExpired)) {
      // A leased attempt began an effect and may have vanished: only its own protocol, or an operator, may decide.
      trace.status = 'unknown';
      throw new NeedsReviewError(record as JournalRecord);
    }
    trace.status = 'in_progress';
    trace.metrics.push(MetricName.inProgressCollision);
    throw new InProgressError(this.settings.retryAfterSeconds, record as JournalRecord);
  }

  private failed(error: unknown, trace: AttemptTrace): unknown {
    if (error instanceof UniqueConflictError || error instanceof WriteConflictError) {
      trace.status = 'conflict';
      trace.metrics.push(MetricName.commitConflict);
    } else if (error instanceof JournalUnavailableError) {
      // Fail closed: nothing committed, and the caller's retry runs again.
      trace.status = 'journal_unavailable';
      trace.metrics.push(MetricName.journalError);
    } else {
      // A staged write DynamoDB refused: the handler's failure, and nothing was written.
      this.released(trace);
    }
    return error;
  }

  private released(trace: AttemptTrace): void {
    trace.status = 'released';
    trace.metrics.push(MetricName.released);
  }

  private scopeFor(request: AttemptRequest): AttemptScope {
    const now = this.settings.clock();
    const record: JournalRecord = {
      pk: request.pk,
      status: RecordStatus.inProgress,
      fingerprint: request.fingerprint,
      leaseToken: newLeaseToken(),
      leaseUntilEpochMs: now,
      attempt: 1,
      createdAtEpochMs: now,
      updatedAtEpochMs: now,
      evidence: {},
      effectStarted: false,
    };
    const noLease = () => 0;
    const noCall = () => undefined;
    return new StagedOnlyScope(this.settings.journal, record, request.key, request.scope, false, noLease, this.settings.clock, noCall);
  }
}

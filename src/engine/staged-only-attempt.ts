import {
  InProgressError,
  JournalUnavailableError,
  NeedsReviewError,
  PayloadMismatchError,
  RecordUnreadableError,
  StagedOnlyError,
  UniqueConflictError,
  WriteConflictError,
} from '../core/index.js';
import {
  isClaimableByCommit,
  needsRecovery,
  newLeaseToken,
  RecordStatus,
  type Evidence,
  type Journal,
  type JournalRecord,
  type StagedCommitResult,
} from '../journal/index.js';
import { MetricName, type AttemptStatus, type AttemptTrace } from '../telemetry/index.js';
import type { EngineSettings } from './guard-options.js';
import { AttemptScope, type AttemptScopeInit } from './scope.js';
import { rememberCompleted, storeOrMark, type Stored } from './stored-outcome.js';

/**
 * How often a commit cancelled by a concurrent transaction is read and decided again before the attempt answers 503.
 */
const MAX_COMMIT_RACES = 3;
/** Upper bound of the first jittered pause after a cancelled commit, in milliseconds; it doubles per race. */
const RACE_PAUSE_MS = 10;

/**
 * The scope of a staged-only attempt: it queues writes like a leased scope, but holds no lease,
 * so the lease operations reject. Its record is the one the attempt will commit: ids derive
 * from when the attempt began, and only the run that commits keeps them.
 */
export class StagedOnlyScope extends AttemptScope {
  /** The scope of an attempt on `pk` that began at `nowEpochMs`, with a fresh commit token. */
  static begin(
    init: Omit<AttemptScopeInit, 'record' | 'recovering' | 'leaseMs'> & {
      readonly pk: string;
      readonly fingerprint: string;
      readonly nowEpochMs: number;
    },
  ): StagedOnlyScope {
    const { pk, fingerprint, nowEpochMs, ...rest } = init;
    const record: JournalRecord = {
      pk,
      status: RecordStatus.inProgress,
      fingerprint,
      leaseToken: newLeaseToken(),
      leaseUntilEpochMs: nowEpochMs,
      attempt: 1,
      createdAtEpochMs: nowEpochMs,
      updatedAtEpochMs: nowEpochMs,
      evidence: {},
      effectStarted: false,
    };
    return new StagedOnlyScope({ ...rest, record, recovering: false, leaseMs: () => 0 });
  }

  override async beginEffect(): Promise<void> {
    throw new StagedOnlyError('beginEffect');
  }

  override async recordEvidence(_refs: Evidence): Promise<void> {
    throw new StagedOnlyError('recordEvidence');
  }

  override async heartbeat(): Promise<void> {
    throw new StagedOnlyError('heartbeat');
  }

  override async holdUnique(): Promise<void> {
    // No lease to own the claim: claimUnique commits it with the writes in the one transaction.
    throw new StagedOnlyError('holdUnique');
  }
}

/** What the staged-only commit needs of the attempt it settles (an `Attempt`). */
export interface StagedOnlyHost {
  /** The attempt's view of the journal (calls counted). */
  readonly journal: Journal;
  readonly trace: AttemptTrace;
  mark(status: AttemptStatus, ...metrics: MetricName[]): void;
  /** Answers with a stored outcome, counted as a replay (or a suppressed duplicate). */
  replay(response: unknown): void;
  /** Refuses the attempt: its key was used with another payload. */
  mismatch(record?: JournalRecord): PayloadMismatchError;
  /** Refuses the attempt: another attempt holds its key. */
  inProgress(record?: JournalRecord): InProgressError;
  /** Counts an attempt whose record cannot be read. */
  unreadable(error: RecordUnreadableError): void;
}

/**
 * The end of a staged-only attempt whose handler returned: one `TransactWriteItems` commits
 * its staged writes, claims and outbox events with the `COMPLETED` record, conditioned on the
 * key being free. When the record's condition fails, the record found decides (replay, 422,
 * 409), whatever the staged writes' own reasons; a concurrent commit is read and decided
 * again. `ran`: the handler's own answer stands (committed, or not stored: 5xx, 408, 429);
 * `superseded`: the outcome another run committed answers.
 *
 * @throws PayloadMismatchError, InProgressError, NeedsReviewError, WriteConflictError,
 *   UniqueConflictError, JournalUnavailableError (nothing committed), ResponseTooLargeError
 *   (the winner's outcome could not be stored), or the error of a staged write DynamoDB refused
 */
export class StagedOnlyCommit {
  constructor(
    private readonly host: StagedOnlyHost,
    private readonly scope: StagedOnlyScope,
    private readonly settings: EngineSettings,
  ) {}

  async settle(outcome: {
    readonly store: boolean;
    readonly response: unknown;
  }): Promise<{ kind: 'ran' | 'superseded'; response: unknown }> {
    if (!outcome.store) {
      this.host.mark('released', MetricName.released);
      return { kind: 'ran', response: outcome.response };
    }
    const { clock } = this.settings;
    for (let races = 0; ;) {
      let sent: Stored<StagedCommitResult>;
      try {
        // Refused before anything was sent, a response that cannot be kept commits as a marker with the writes.
        sent = await storeOrMark(outcome.response, (stored) => this.send(stored));
      } catch (error) {
        throw this.failed(error);
      }
      const { result, stored, unserializable } = sent;
      if (result.kind === 'committed') {
        if (unserializable) throw unserializable;
        return this.committed(stored, outcome.response);
      }
      let found: JournalRecord | undefined;
      if (result.kind === 'refused') {
        found = result.record;
      } else {
        // Cancelled by a concurrent transaction: once it has landed, the record it wrote decides.
        if (++races > MAX_COMMIT_RACES)
          throw this.failed(new JournalUnavailableError(`The commit met a concurrent transaction ${races} times`));
        await this.settings.sleep(Math.random() * RACE_PAUSE_MS * 2 ** races);
        found = await this.host.journal.get(this.scope.pk).catch((error: unknown) => {
          throw this.failed(error);
        });
        // An SDK resend of ours, cancelled by our own commit still in flight: the record is ours.
        if (found?.leaseToken === this.scope.leaseToken) return this.committed(stored, outcome.response);
      }
      if (found && !isClaimableByCommit(found, clock())) return this.decide(found);
      // Gone, or claimable since the commit was refused (it changed in between): commit again.
      if (result.kind === 'refused' && ++races > MAX_COMMIT_RACES)
        throw this.failed(new JournalUnavailableError('The commit kept meeting changed records'));
    }
  }

  private send(response: unknown): Promise<StagedCommitResult> {
    const { scope } = this;
    return this.host.journal.commitStaged({
      pk: scope.pk,
      fingerprint: scope.fingerprint,
      commitToken: scope.leaseToken,
      createdAtEpochMs: scope.createdAtEpochMs,
      response,
      ttlSeconds: this.settings.ttlSeconds,
      writes: { staged: scope.staged, uniqueClaims: scope.uniqueClaims, outbox: scope.outbox },
    });
  }

  /**
   * The commit landed. A transaction returns nothing on success, so a record it replaced (past its `expiresAt`, or an
   * abandoned lease) is not known here: the attempt counts as new.
   */
  private committed(stored: unknown, response: unknown): { kind: 'ran'; response: unknown } {
    const { host, scope } = this;
    host.mark('new', MetricName.newRequest);
    host.trace.metrics.push(...scope.outbox.map(() => MetricName.outboxPublished));
    rememberCompleted(this.settings, scope, stored);
    return { kind: 'ran', response };
  }

  /** What a record this attempt could not claim means for it: a mismatch wins over every state. */
  private decide(record: JournalRecord): { kind: 'superseded'; response: unknown } {
    const { host } = this;
    host.trace.attempt = record.attempt;
    if (record.fingerprint !== this.scope.fingerprint) throw host.mismatch(record);
    if (record.status === RecordStatus.completed) {
      this.settings.localCache?.remember(record);
      host.replay(record.response?.value);
      return { kind: 'superseded', response: record.response?.value };
    }
    if (needsRecovery(record, this.settings.clock())) {
      // A leased attempt began an effect and may have vanished: only its own protocol, or an operator, may decide.
      host.mark('unknown');
      throw new NeedsReviewError(record);
    }
    throw host.inProgress(record);
  }

  private failed(error: unknown): unknown {
    if (error instanceof UniqueConflictError || error instanceof WriteConflictError)
      this.host.mark('conflict', MetricName.commitConflict);
    // Fail closed: nothing committed, and the caller's retry runs again.
    else if (error instanceof JournalUnavailableError) this.host.mark('journal_unavailable', MetricName.journalError);
    // The record in the way cannot be read: nothing committed, and it is left for an operator.
    else if (error instanceof RecordUnreadableError) this.host.unreadable(error);
    // A staged write DynamoDB refused: the handler's failure, and nothing was written.
    else this.host.mark('released', MetricName.released);
    return error;
  }
}

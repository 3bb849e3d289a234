import {
  IdempotencyError,
  InProgressError,
  JournalError,
  JournalUnavailableError,
  KeyInvalidError,
  KeyMissingError,
  keyProblem,
  LeaseLostError,
  NeedsReviewError,
  NO_TENANT,
  PayloadMismatchError,
  RecordUnreadableError,
  UniqueConflictError,
  WriteConflictError,
} from '../core/index.js';
import { messagePk, RecordStatus, requestPk, type JournalRecord } from '../journal/index.js';
import {
  MetricName,
  newTrace,
  traceIdOf,
  type AttemptStatus,
  type AttemptTrace,
  type Telemetry,
} from '../telemetry/index.js';
import { CountedJournal } from './counted-journal.js';
import { durableExecutionOf, endsInvocationOnly, type DurableExecution } from './durable-execution.js';
import type { EngineSettings } from './guard-options.js';
import {
  assertStoredResponse,
  isNotStoredMarker,
  rememberCompleted,
  storeOrMark,
  type Stored,
} from './stored-outcome.js';
import { AttemptScope, bindScope, unbindScope } from './scope.js';
import { StagedOnlyCommit, StagedOnlyScope } from './staged-only-attempt.js';

/** A Lambda context, or any object standing for one outside Lambda. */
export type LambdaContextLike = {
  readonly awsRequestId?: string;
  readonly xRayTraceId?: string;
  getRemainingTimeInMillis?: () => number;
};

/** One attempt as an entry point describes it, before anything is checked. */
export interface AttemptRequest {
  /**
   * `request` (HTTP, functions: `req#` records) or `message` (queues: `msg#` records, a replay counts as a suppressed
   * duplicate).
   */
  readonly kind: 'request' | 'message';
  /** Tenant part of the scope (requests only). */
  readonly tenant?: string;
  /** The operation, or the consumer of a queue. */
  readonly operation: string;
  /** Reads the key (or message id); it may throw `KeyMissingError` or `KeyInvalidError` itself. */
  readonly key: () => unknown;
  /** How answers name the key: `'The Idempotency-Key header'`, `'The message id'`. */
  readonly keyLabel: string;
  /** A problem the entry point found while reading the key (two different headers, say). */
  readonly keyProblem?: string;
  /** Why the tenant or operation could not be read (checked after the key, before the fingerprint). */
  readonly scopeError?: unknown;
  /** Hex fingerprint of the request; read only once the key passed its checks. */
  readonly fingerprint: () => string;
  /**
   * What the previous library's key derivation reads during a migration: the raw Lambda event, or the function's input.
   */
  readonly legacyEvent?: unknown;
}

/** What an attempt meets before its handler runs. */
export type Admission =
  | { readonly kind: 'refused'; readonly error: unknown }
  | { readonly kind: 'replay'; readonly response: unknown }
  | { readonly kind: 'run'; readonly scope: AttemptScope };

/** What an attempt's handler produced, as the entry point wants it kept. */
export interface HandlerOutcome {
  /** False for an error outcome that must not be replayed (5xx, 408, 429): the record is released. */
  readonly store: boolean;
  /** The outcome in the form that is stored and replayed. */
  readonly response: unknown;
}

/** The answer of an attempt run through {@link IdempotencyEngine.run}. */
export interface RunResult {
  /**
   * `ran`: this attempt's handler ran; `replayed`: an earlier outcome answers; `superseded`: another attempt's outcome
   * answers.
   */
  readonly kind: 'ran' | 'replayed' | 'superseded';
  readonly response: unknown;
}

/**
 * One guarded attempt from its key check to its log line: it holds the attempt's trace, its
 * view of the journal (calls counted), its scope while it holds a lease, and ends with
 * exactly one of `complete`, `fail` or `abandon` (the handler's error was answered by someone
 * else), then `finish`.
 */
export class Attempt {
  readonly trace: AttemptTrace = newTrace();
  readonly journal: CountedJournal;
  readonly remainingTimeMs?: () => number;
  /** The Lambda durable execution this attempt runs in, if any. */
  readonly durable?: DurableExecution;
  admission: Admission = { kind: 'refused', error: undefined };
  private key?: string;
  private pk?: string;
  private requestHash?: string;
  private readonly startedAtEpochMs: number;
  private finished = false;

  constructor(
    readonly request: AttemptRequest,
    private readonly context: LambdaContextLike,
    private readonly settings: EngineSettings,
    private readonly telemetry: Telemetry,
  ) {
    this.startedAtEpochMs = settings.clock();
    this.journal = new CountedJournal(settings.journal);
    this.durable = durableExecutionOf(context);
    // A durable context carries the invocation's own Lambda context: its remaining time is this invocation's.
    const invocation = this.durable?.invocation ?? context;
    const getRemaining = invocation?.getRemainingTimeInMillis;
    if (typeof getRemaining === 'function') this.remainingTimeMs = () => getRemaining.call(invocation);
  }

  /**
   * Checks the key, then fingerprints the request: key present and valid, then scope, then
   * fingerprint, as every entry point must.
   *
   * @throws KeyMissingError, KeyInvalidError, RequestInvalidError
   */
  identify(): { pk: string; fingerprint: string } {
    const { request } = this;
    let key: unknown;
    try {
      if (request.keyProblem) throw new KeyInvalidError(request.keyProblem);
      key = request.key();
      if (key === undefined || key === null || key === '') {
        throw new KeyMissingError(`${request.keyLabel} is required for ${request.operation}`);
      }
      const problem = keyProblem(key as string);
      if (problem) throw new KeyInvalidError(`${request.keyLabel} ${problem}`);
    } catch (error) {
      // Whatever stops the key from being read (an unreadable body holding it, say) makes it invalid.
      this.mark(error instanceof KeyMissingError ? 'missing_key' : 'invalid_key');
      throw error;
    }
    this.key = key as string;
    if (request.scopeError) throw request.scopeError;
    const pk =
      request.kind === 'message'
        ? messagePk(request.operation, this.key)
        : requestPk(this.tenant, request.operation, this.key);
    this.pk = pk;
    this.requestHash = request.fingerprint();
    return { pk, fingerprint: this.requestHash };
  }

  /** Sets the attempt's status and counts its metrics. */
  mark(status: AttemptStatus, ...metrics: MetricName[]): void {
    this.trace.status = status;
    this.trace.metrics.push(...metrics);
  }

  /** Admits the attempt to run under the lease of `record`, its scope bound to the context. */
  hold(record: JournalRecord, recovering: boolean, leaseMs: () => number): void {
    this.trace.attempt = record.attempt;
    const scope = new AttemptScope({
      journal: this.journal,
      record,
      key: this.key as string,
      scope: this.scopeName,
      recovering,
      leaseMs,
      clock: this.settings.clock,
    });
    bindScope(this.context, scope);
    this.admission = { kind: 'run', scope };
  }

  /**
   * Admits a replay of the durable execution that holds `record`: it continues under the record's
   * own lease token, with the evidence and effect marker its earlier invocations left.
   */
  resume(record: JournalRecord, leaseMs: () => number): void {
    this.mark('resumed');
    this.hold(record, false, leaseMs);
  }

  /**
   * Admits the attempt to run without a lease (`effects: 'staged-only'`): its scope queues the
   * writes that one transaction commits with the outcome once the handler returned.
   */
  holdStaged(pk: string, fingerprint: string): void {
    this.trace.attempt = 1;
    const { clock } = this.settings;
    const scope = StagedOnlyScope.begin({
      journal: this.journal,
      pk,
      fingerprint,
      nowEpochMs: clock(),
      key: this.key as string,
      scope: this.scopeName,
      clock,
    });
    bindScope(this.context, scope);
    this.admission = { kind: 'run', scope };
  }

  /**
   * Answers with a stored outcome, counted as a replay (or, for a queue, a suppressed duplicate).
   *
   * @throws RecordUnreadableError when the outcome is not one the entry point can answer with
   */
  replay(response: unknown): void {
    this.assertReplayable(response);
    this.mark('replay', this.request.kind === 'message' ? MetricName.duplicateSuppressed : MetricName.replay);
    this.answerWith(response);
  }

  /** Answers with an outcome stored by this attempt (a `recover` hook's), without counting a replay. */
  answerWith(response: unknown): void {
    this.release();
    assertStoredResponse(response);
    this.admission = { kind: 'replay', response };
  }

  /**
   * Counts an attempt refused because its record cannot be read: nothing runs and nothing is written, and the
   * operator hears of it (the log line carries the reason, `JournalError` counts it).
   */
  unreadable(error: RecordUnreadableError): void {
    if (this.trace.failure === error) return;
    this.mark('record_unreadable', MetricName.journalError);
    this.trace.failure = error;
  }

  /**
   * Whether the handler's error says the invocation ended before the handler settled: Middy's
   * `timeoutEarly` (see {@link endedBeforeSettling}), or, in a durable execution, any timeout or
   * abort that ends one invocation, not the execution (a later invocation resumes under the same
   * lease). The one place this is decided, for every entry point; {@link interrupt} then holds the record.
   */
  endsBeforeSettling(error: unknown): boolean {
    return endedBeforeSettling(error) || (this.durable !== undefined && endsInvocationOnly(error));
  }

  /**
   * Ends an attempt whose invocation ended before its handler settled (see {@link endedBeforeSettling}). The outcome
   * is unknown, not a failure: the handler may still be running (Lambda thaws a frozen container and it goes on), so
   * the record stays held under its lease, and once that ends the takeover rules decide (a rerun only if no effect
   * began). Nothing is written. Returns the error, for the caller to throw.
   */
  interrupt(error: unknown): unknown {
    this.release();
    this.trace.failure = error instanceof Error ? error : new Error(String(error));
    return error;
  }

  /** Refuses the attempt with a typed error (or the unexpected error that stopped it). */
  refuse(error: unknown): void {
    this.release();
    this.admission = { kind: 'refused', error };
  }

  /** The scope of a running attempt. */
  get scope(): AttemptScope {
    if (this.admission.kind !== 'run') throw new IdempotencyError('no-scope', 'The attempt holds no lease');
    return this.admission.scope;
  }

  /**
   * Settles an attempt whose handler returned. `store` false (5xx, 408, 429) releases the
   * record, or marks it `UNKNOWN` when an effect had begun; otherwise the outcome and the
   * queued writes commit in one fenced write. A lost lease answers with the owner's outcome.
   *
   * @throws UniqueConflictError, WriteConflictError, JournalUnavailableError (staged writes not committed),
   *   InProgressError or NeedsReviewError (lease lost and no outcome stored yet)
   */
  async complete(outcome: HandlerOutcome): Promise<RunResult> {
    const scope = this.scope;
    this.release();
    if (scope instanceof StagedOnlyScope) return new StagedOnlyCommit(this, scope, this.settings).settle(outcome);
    if (!outcome.store) {
      await this.abandon();
      return { kind: 'ran', response: outcome.response };
    }
    const writes = scope.hasWrites
      ? { staged: scope.staged, uniqueClaims: scope.uniqueClaims, outbox: scope.outbox, heldClaims: scope.heldClaims }
      : undefined;
    let completed: Stored<void>;
    try {
      completed = await storeOrMark(outcome.response, (stored) =>
        this.journal.complete(scope.pk, scope.leaseToken, stored, this.settings.ttlSeconds, writes),
      );
    } catch (error) {
      return this.completionFailed(error, outcome.response);
    }
    this.trace.metrics.push(...scope.outbox.map(() => MetricName.outboxPublished));
    rememberCompleted(this.settings, scope, completed.stored);
    // A first caller gets what every replay will get; only a response too large to store still reaches it.
    if (completed.unserializable) throw completed.unserializable;
    return { kind: 'ran', response: outcome.response };
  }

  /**
   * Ends an attempt whose handler threw. A `LeaseLostError` (the handler's own fenced write
   * was refused) answers with the outcome of the attempt that took over; any other error
   * releases the record (or marks it `UNKNOWN` after `beginEffect`) and is thrown again.
   */
  async fail(error: unknown): Promise<RunResult> {
    this.release();
    if (this.scope instanceof StagedOnlyScope) {
      // Nothing was written: the handler's error is the answer, and a retry runs again.
      this.mark('released', MetricName.released);
      throw error;
    }
    if (error instanceof LeaseLostError) return this.afterLeaseLost(error);
    // A claim `holdUnique` found taken, before any effect: the record goes as after a refused commit.
    if (error instanceof UniqueConflictError) return this.conflicted(error);
    await this.abandon();
    throw error;
  }

  /** Releases the record, or marks it `UNKNOWN` when an effect had begun; a lost lease leaves it to its new owner. */
  async abandon(): Promise<void> {
    const scope = this.scope;
    this.release();
    if (scope instanceof StagedOnlyScope) return this.mark('released', MetricName.released);
    try {
      if (await this.letGo(scope)) this.mark('unknown', MetricName.unknownAfterEffect);
      else this.mark('released', MetricName.released);
    } catch (error) {
      if (error instanceof LeaseLostError) return this.mark('lease_lost');
      if (error instanceof RecordUnreadableError) return this.unreadable(error);
      // The lease resolves it like a crash would: the error that made us abandon matters more.
      this.mark('journal_unavailable', MetricName.journalError);
    }
  }

  /**
   * Lets the record go without an outcome: `UNKNOWN` once an effect may have happened (only an
   * operator or a recovery may end it), released otherwise (the next attempt runs the handler).
   * Returns whether it was marked `UNKNOWN`.
   */
  private async letGo(scope: AttemptScope): Promise<boolean> {
    // Held claims outlive an UNKNOWN record: they guard the effect that may have happened.
    if (scope.effectStarted) await this.journal.markUnknown(scope.pk, scope.leaseToken);
    else await this.journal.release(scope.pk, scope.leaseToken);
    if (!scope.effectStarted)
      await scope.letGoHeldClaims().catch(() => this.trace.metrics.push(MetricName.journalError));
    return scope.effectStarted;
  }

  /** Refuses the attempt because its key was used with another payload (422); the caller throws what it returns. */
  mismatch(record?: JournalRecord): PayloadMismatchError {
    this.mark('mismatch', MetricName.payloadMismatch);
    return new PayloadMismatchError(record);
  }

  /** Refuses the attempt because another attempt holds its key (409); the caller throws what it returns. */
  inProgress(record?: JournalRecord): InProgressError {
    this.mark('in_progress', MetricName.inProgressCollision);
    if (record) this.trace.attempt = record.attempt;
    return new InProgressError(this.settings.retryAfterSeconds, record);
  }

  /** Writes the attempt's log line and metrics, once, with the answer the entry point gave. */
  finish(answer: { readonly responseCode?: number; readonly resourceId?: string } = {}): void {
    if (this.finished) return;
    this.finished = true;
    this.release();
    if (this.admission.kind === 'run') {
      const first = Object.values(this.admission.scope.evidence)[0];
      this.trace.downstreamReference = first === undefined ? undefined : String(first);
    }
    this.trace.journalCalls = this.journal.calls;
    for (let i = 0; i < this.journal.replicatedConflicts.count; i++)
      this.trace.metrics.push(MetricName.replicatedWriteConflict);
    const identity = {
      requestId: this.durable?.invocation.awsRequestId ?? this.context?.awsRequestId,
      traceId: traceIdOf(this.durable?.invocation ?? this.context),
      tenant: this.request.kind === 'request' ? this.tenant : undefined,
      operation: this.request.operation,
      key: this.key,
      requestHash: this.requestHash,
      ...answer,
    };
    this.telemetry.emit(identity, this.trace, this.startedAtEpochMs, this.settings.clock());
    this.annotate();
  }

  /** Annotates the current trace segment with what the attempt met (never with the key). */
  private annotate(): void {
    const { tracer } = this.settings;
    if (!tracer) return;
    try {
      if (this.trace.status) tracer.putAnnotation('idempotency_status', this.trace.status);
      if (this.trace.attempt !== undefined) tracer.putAnnotation('attempt', this.trace.attempt);
    } catch {
      // Tracing must not turn a correct answer into a failure.
    }
  }

  private get tenant(): string {
    return this.request.tenant ?? NO_TENANT;
  }

  /** `<tenant>#<operation>`, or the consumer of a queue. */
  private get scopeName(): string {
    return this.request.kind === 'message' ? this.request.operation : `${this.tenant}#${this.request.operation}`;
  }

  /** The scope stops answering `idempotencyOf(context)` once the attempt is being settled. */
  private release(): void {
    if (this.context) unbindScope(this.context);
  }

  private async completionFailed(error: unknown, response: unknown): Promise<RunResult> {
    const scope = this.scope;
    if (error instanceof LeaseLostError) return this.afterLeaseLost(error);
    if (error instanceof RecordUnreadableError) {
      // The record changed into something the guard cannot read: it is left as it is for an operator.
      this.unreadable(error);
      throw error;
    }
    if (error instanceof UniqueConflictError || error instanceof WriteConflictError) return this.conflicted(error);
    if (!(error instanceof JournalUnavailableError)) {
      // Not the journal's failure (a staged write refused on its own table, say): the handler's, so the record is let
      // go.
      this.trace.failure = error as Error;
      await this.abandon();
      throw error;
    }
    this.trace.metrics.push(MetricName.journalError);
    if (scope.hasWrites) {
      // Nothing committed: the caller must retry, and the lease will let that retry in.
      this.mark('journal_unavailable');
      throw error;
    }
    this.trace.journalError = new JournalError('The completion write failed; the lease will resolve the record', {
      cause: error,
    });
    return { kind: 'ran', response };
  }

  /** Lets the record go after a conflict nothing of this attempt committed, and throws the conflict. */
  private async conflicted(error: UniqueConflictError | WriteConflictError): Promise<never> {
    this.trace.metrics.push(MetricName.commitConflict);
    try {
      await this.letGo(this.scope);
    } catch {
      this.trace.metrics.push(MetricName.journalError);
    }
    this.mark('conflict');
    throw error;
  }

  /** The stored outcome of the attempt that took over, never this attempt's own. */
  private async afterLeaseLost(error: LeaseLostError): Promise<RunResult> {
    this.mark('lease_lost');
    const stored = error.existing;
    if (stored?.status === RecordStatus.completed && stored.response) return this.superseded(stored.response.value);
    const current = await this.journal.get(this.scope.pk).catch((readError: unknown) => {
      if (!(readError instanceof RecordUnreadableError)) return undefined;
      this.unreadable(readError);
      throw readError;
    });
    if (current?.status === RecordStatus.completed && current.response) return this.superseded(current.response.value);
    throw current?.status === RecordStatus.unknown
      ? new NeedsReviewError(current)
      : new InProgressError(this.settings.retryAfterSeconds, current);
  }

  /** Another attempt's stored outcome, or the error its marker stands for. */
  private superseded(response: unknown): RunResult {
    this.assertReplayable(response);
    assertStoredResponse(response);
    return { kind: 'superseded', response };
  }

  /** Refuses a stored outcome the entry point cannot answer with (an HTTP response without a status, say). */
  private assertReplayable(response: unknown): void {
    if (isNotStoredMarker(response)) return;
    try {
      this.settings.assertReplayable?.(response, this.pk ?? '');
    } catch (error) {
      if (error instanceof RecordUnreadableError) this.unreadable(error);
      throw error;
    }
  }
}

/**
 * Whether a handler's error says its invocation ended before the handler settled, so its promise
 * may still be running: Middy's `timeoutEarly` (`@middy/core` rejects with its `TimeoutError` a few
 * milliseconds before the Lambda deadline while the handler goes on; Lambda freezes the container
 * and, when it is reused, the handler continues).
 */
export function endedBeforeSettling(error: unknown): boolean {
  return (
    error instanceof Error &&
    error.name === 'TimeoutError' &&
    (error.cause as { package?: unknown } | undefined)?.package === '@middy/core'
  );
}

import {
  IdempotencyError,
  JournalUnavailableError,
  KeyMissingError,
  lambdaTenantOf,
  LeaseLostError,
  RecordUnreadableError,
  UniqueConflictError,
} from '../core/index.js';
import type { JournalRecord } from '../journal/index.js';
import { traceIdOf, type AttemptTrace, type Telemetry } from '../telemetry/index.js';
import {
  AttemptExecutor,
  type Admission,
  type ExecutorHost,
  type NextStep,
  type RunAdmission,
  type RunResult,
} from './attempt-executor.js';
import { AttemptLog } from './attempt-log.js';
import { readKey, recordPkOf, scopeNameOf, tenantOf, type AttemptRequest } from './attempt-request.js';
import { CountedJournal } from './counted-journal.js';
import { unreadableAsFound, type AttemptOutcome } from './decision.js';
import {
  assertLeasedForDurable,
  durableExecutionOf,
  endsInvocationOnly,
  type DurableExecution,
} from './durable-execution.js';
import type { EngineSettings, HandlerOutcome } from './guard-options.js';
import {
  endedBeforeSettling,
  LEASE_GRACE_MS,
  leaseMsFor,
  remainingTimeOf,
  type LambdaContextLike,
} from './invocation.js';
import { consultLegacy, type LegacyAdmissionHost } from './legacy-admission.js';
import { cachedReplayOf } from './outcome-cache.js';
import { AttemptScope, bindScope, unbindScope } from './scope.js';
import { LeasedSettlement, StagedOnlySettlement, type Settlement, type SettlementContext } from './settlement.js';
import { SettlementFailures } from './settlement-failures.js';
import { assertStoredResponse, rememberCompleted } from './stored-outcome.js';

/** How often the admission decides again on a record that changed under its write, before it answers 409. */
const MAX_RACES = 3;
/** How long the `wait` policy pauses between two reads of a record held by a live lease, in milliseconds. */
const POLL_INTERVAL_MS = 100;

/**
 * One guarded attempt from its key check to its log line. Every record found in its way is decided by
 * `decide()` and what it does then is carried out by its {@link AttemptExecutor}; status and metrics are
 * written only through its {@link AttemptLog}. It holds its scope while the handler runs, settles through
 * the {@link Settlement} its mode gives it (failures answered by {@link SettlementFailures}), asks the
 * previous library during a migration ({@link consultLegacy}), and writes the log line once.
 */
export class Attempt {
  readonly journal: CountedJournal;
  /** The Lambda durable execution this attempt runs in, if any. */
  readonly durable?: DurableExecution;
  private readonly remainingTimeMs?: () => number;
  private admitted?: Admission;
  /** The settlement of the running attempt, with what its failures answer. */
  private settling?: SettlementFailures;
  private key?: string;
  private pk?: string;
  /** The invocation's tenant under Lambda tenant isolation: part of the scope, in front of everything else. */
  private lambdaTenant?: string;
  private requestHash?: string;
  private readonly log: AttemptLog;
  private readonly executor: AttemptExecutor;
  /** What the attempt lends the executor and the migration lookup: its own steps, its journal, settings and log. */
  private readonly host: ExecutorHost & LegacyAdmissionHost;

  constructor(
    readonly request: AttemptRequest,
    private readonly context: LambdaContextLike,
    private readonly settings: EngineSettings,
    telemetry: Telemetry,
  ) {
    this.log = new AttemptLog(telemetry, settings.clock, settings.tracer);
    // [hot-keys hook] the guard's clock reads the lease memory's leases, as it reads every lease.
    this.journal = new CountedJournal(settings.journal, settings.clock);
    this.durable = durableExecutionOf(context);
    this.remainingTimeMs = remainingTimeOf(context, this.durable);
    this.host = {
      journal: this.journal,
      settings,
      log: this.log,
      durable: this.durable,
      replayOutcome: request.kind === 'message' ? 'duplicate' : 'replay',
      recordPk: () => this.pk ?? '',
      leaseMs: () => this.leaseMs(),
      hold: (record, recovering) => this.hold(record, recovering),
      answerWithStored: (response) => this.answerWithStored(response),
      letGo: () => this.running().letGo(),
      release: () => this.release(),
      refuse: (outcome, error) => this.refuse(outcome, error),
    };
    this.executor = new AttemptExecutor(this.host);
  }

  /** The Lambda request id of this invocation (the log line's `request_id`), if the context has one. */
  get requestId(): string | undefined {
    return this.durable?.invocation.awsRequestId ?? this.context?.awsRequestId;
  }

  /** What the attempt met so far: its status, attempt number and metrics. */
  get trace(): AttemptTrace {
    return this.log.trace;
  }

  /** What the attempt met before its handler runs; set once by {@link admit}. */
  get admission(): Admission {
    if (!this.admitted) throw new IdempotencyError('no-scope', 'The attempt has not been admitted');
    return this.admitted;
  }

  /**
   * Checks the key, fingerprints the request and decides what the attempt meets. Never throws for
   * a guard situation: a refusal carries its typed error. A running attempt's scope is bound to
   * the context until the attempt is settled.
   */
  async admit(): Promise<Admission> {
    try {
      this.admitted = await this.admitKey();
    } catch (error) {
      // Where an error met while admitting (the journal's included) becomes a refusal.
      if (error instanceof JournalUnavailableError) this.log.noteUnavailable(error);
      else if (error instanceof RecordUnreadableError) this.log.noteUnreadable(error);
      this.release();
      this.admitted = { kind: 'refused', error };
    }
    return this.admitted;
  }

  /**
   * Whether the handler's error says the invocation ended before the handler settled: Middy's
   * `timeoutEarly` (see {@link endedBeforeSettling}), or, in a durable execution, any timeout or
   * abort that ends one invocation, not the execution (a later invocation resumes under the same lease).
   */
  endsBeforeSettling(error: unknown): boolean {
    return endedBeforeSettling(error) || (this.durable !== undefined && endsInvocationOnly(error));
  }

  /**
   * Ends an attempt whose invocation ended before its handler settled. The outcome is unknown, not a failure: the
   * handler may still be running (Lambda thaws a frozen container and it goes on), so the record stays held under its
   * lease, and once that ends the takeover rules decide (a rerun only if no effect began). Nothing is written.
   */
  interrupt(error: unknown): RunResult {
    this.release();
    this.trace.failure = error instanceof Error ? error : new Error(String(error));
    return { kind: 'failed', error, interrupted: true };
  }

  /**
   * Settles an attempt whose handler returned. `store` false (5xx, 408, 429) lets the record go;
   * otherwise the settlement stores the outcome with the queued writes. A lost lease, or a
   * staged-only commit that found the key taken, answers with what the record found says.
   *
   * @throws UniqueConflictError, WriteConflictError, JournalUnavailableError (nothing committed),
   *   PayloadMismatchError, InProgressError or NeedsReviewError (the record found decides), RecordUnreadableError
   */
  async settle(outcome: HandlerOutcome): Promise<RunResult> {
    const running = this.running();
    const { settlement } = running;
    this.release();
    const answer = { kind: 'ran', response: 'answer' in outcome ? outcome.answer : outcome.response } as const;
    if (!outcome.store) {
      await running.letGo();
      return answer;
    }
    let stored;
    try {
      stored = await settlement.store(outcome.response);
    } catch (error) {
      return running.storeFailed(error, answer);
    }
    if (stored.kind === 'found') return this.executor.carryOut(stored.decision, 'commit');
    if (stored.claimedKey) this.log.note('new');
    settlement.scope.outbox.forEach(() => this.log.note('outboxPublished'));
    rememberCompleted(this.settings, settlement.scope, stored.stored);
    // A first caller gets what every replay will get; only a response too large to store still reaches it.
    if (stored.unserializable) throw stored.unserializable;
    return answer;
  }

  /**
   * Ends an attempt whose handler threw. A `LeaseLostError` of its own fenced write answers with the
   * outcome of the attempt that took over; a claim `holdUnique` found taken goes as a refused
   * commit; any other error lets the record go and stands.
   */
  async fail(error: unknown): Promise<RunResult> {
    const running = this.running();
    const { leased } = running.settlement.scope;
    this.release();
    if (leased && error instanceof LeaseLostError) return running.afterLeaseLost(error);
    if (leased && error instanceof UniqueConflictError) return running.conflicted(error);
    await running.letGo();
    return { kind: 'failed', error, interrupted: false };
  }

  /** Ends an attempt whose handler's error someone else answered: the record is let go, the error stands. */
  async failAnswered(error: unknown): Promise<RunResult> {
    const running = this.running();
    this.release();
    await running.letGo();
    return { kind: 'failed', error, interrupted: false };
  }

  /** Writes the attempt's log line and metrics, once, with the answer the entry point gave. */
  finish(answer: { readonly responseCode?: number; readonly resourceId?: string } = {}): void {
    if (this.log.emitted) return;
    this.release();
    if (this.admitted?.kind === 'run') {
      const first = Object.values(this.admitted.scope.evidence)[0];
      this.trace.downstreamReference = first === undefined ? undefined : String(first);
    }
    this.trace.journalCalls = this.journal.calls;
    for (let i = 0; i < this.journal.replicatedConflicts.count; i++) this.log.note('replicatedWriteConflict');
    // Throttle hook: `JournalThrottled` and the reasons, for every throttle the attempt's journal calls met.
    this.log.noteThrottles(this.journal.throttles);
    this.log.emit({
      requestId: this.requestId,
      traceId: traceIdOf(this.durable?.invocation ?? this.context),
      tenant: this.request.kind === 'request' ? tenantOf(this.request) : undefined,
      lambdaTenant: this.lambdaTenant,
      operation: this.request.operation,
      key: this.key,
      requestHash: this.requestHash,
      ...answer,
    });
  }

  // ---- admission ----

  /**
   * The key and fingerprint first; then what this container remembers of the key; then the
   * journal: reserve, and decide what a record in the way means until an action admits or refuses.
   */
  private async admitKey(): Promise<Admission> {
    const { pk, fingerprint } = this.identify();
    const remembered = await this.answerFromMemory(pk, fingerprint);
    if (remembered) return remembered;
    const { clock, effects } = this.settings;
    if (this.durable) assertLeasedForDurable(effects);
    // Nothing to reserve: the handler runs first, and the transaction that commits its writes claims the key.
    if (effects === 'staged-only') return this.holdStaged(pk, fingerprint);
    const leaseMs = this.leaseMs();
    const waitMs = this.settings.inProgress === 'wait' ? this.settings.waitMs : 0;
    const waitUntil = clock() + Math.min(waitMs, (this.remainingTimeMs?.() ?? Infinity) - LEASE_GRACE_MS);
    let found: JournalRecord | RecordUnreadableError | undefined;
    let next: NextStep = 'reserve-again';
    for (let races = 0; ;) {
      if (next === 'reserve-again') {
        const reservation = await this.journal.reserve({
          pk,
          fingerprint,
          leaseMs,
          ttlSeconds: this.settings.ttlSeconds,
          durableExecutionArn: this.durable?.executionArn,
        });
        if (reservation.reserved) return this.reserved(reservation.record, reservation.replacedExpired);
        found = reservation.record;
      } else {
        // Polling reads; only a record that vanished (released) or expired sends us back to reserving.
        found = await this.journal.get(pk).catch(unreadableAsFound);
      }
      const decision = this.executor.decisionOn(found, fingerprint);
      const step = await this.executor.carryOut(decision, 'admission');
      if (typeof step !== 'string') return step;
      if (step !== 'wait') {
        // Another attempt changed the record between our read and our write: decide again on what it wrote.
        if (++races > MAX_RACES) return this.refuse('inProgress', this.executor.inProgressError(decision));
      } else {
        if (clock() + POLL_INTERVAL_MS > waitUntil)
          return this.refuse('inProgress', this.executor.inProgressError(decision));
        await this.settings.sleep(POLL_INTERVAL_MS);
      }
      next = step;
    }
  }

  /**
   * What this process already knows of the key, asked before the journal (the one place to ask
   * anything kept in memory): a completed outcome the local cache kept answers without a DynamoDB call.
   */
  private async answerFromMemory(pk: string, fingerprint: string): Promise<Admission | undefined> {
    // [hot-keys hook] an outcome cache only replays an entry of this key and fingerprint; anything else asks the journal.
    const cached = await cachedReplayOf(this.settings, pk, fingerprint);
    return cached ? this.executor.replayOf(cached.value) : undefined;
  }

  /**
   * Checks the key, then fingerprints the request: key present and valid, then scope, then
   * fingerprint, as every entry point must.
   *
   * @throws KeyMissingError, KeyInvalidError, RequestInvalidError
   */
  private identify(): { pk: string; fingerprint: string } {
    const { request } = this;
    try {
      this.key = readKey(request);
    } catch (error) {
      this.log.note(error instanceof KeyMissingError ? 'missingKey' : 'invalidKey');
      throw error;
    }
    if (request.scopeError) throw request.scopeError;
    this.lambdaTenant = lambdaTenantOf(this.durable?.invocation ?? this.context);
    this.pk = recordPkOf(request, this.key, this.lambdaTenant);
    this.requestHash = request.fingerprint();
    return { pk: this.pk, fingerprint: this.requestHash };
  }

  /** A fresh reservation: counted new (or an expired key reused), unless the previous library answers for it. */
  private async reserved(record: JournalRecord, replacedExpired: boolean): Promise<Admission> {
    const admission = this.hold(record, false);
    const legacy = await consultLegacy(this.host, admission.scope, this.request.legacyEvent);
    if (legacy) return legacy;
    this.log.note(replacedExpired ? 'expired' : 'new');
    return admission;
  }

  /**
   * Completes the held record with an outcome handed back (by a `recover` hook or the previous
   * library) and answers with it.
   */
  private async answerWithStored(response: unknown): Promise<Admission> {
    const settled = await this.settle({ store: true, response: this.settings.storedFormOf(response) });
    if (settled.kind === 'failed') throw settled.error;
    assertStoredResponse(settled.response);
    return { kind: 'replay', response: settled.response };
  }

  // ---- holding, refusing ----

  /** Admits the attempt to run under the lease of `record`, its scope bound to the context. */
  private hold(record: JournalRecord, recovering: boolean): RunAdmission {
    this.trace.attempt = record.attempt;
    const scope = new AttemptScope({
      journal: this.journal,
      record,
      key: this.key as string,
      scope: this.scopeName,
      recovering,
      leased: true,
      leaseMs: () => this.leaseMs(),
      clock: this.settings.clock,
    });
    return this.run(new LeasedSettlement(scope, this.settlementContext));
  }

  /**
   * Admits the attempt to run without a lease (`effects: 'staged-only'`): its scope queues the
   * writes that one transaction commits with the outcome once the handler returned.
   */
  private holdStaged(pk: string, fingerprint: string): RunAdmission {
    this.trace.attempt = 1;
    const scope = StagedOnlySettlement.scopeFor({
      journal: this.journal,
      pk,
      fingerprint,
      key: this.key as string,
      scope: this.scopeName,
      clock: this.settings.clock,
    });
    return this.run(new StagedOnlySettlement(scope, this.settlementContext));
  }

  private run(settlement: Settlement): RunAdmission {
    const { journal, log, executor } = this;
    this.settling = new SettlementFailures(settlement, { journal, log, executor });
    bindScope(this.context, settlement.scope);
    const admitted = { kind: 'run', scope: settlement.scope } as const;
    this.admitted = admitted;
    return admitted;
  }

  private refuse(outcome: AttemptOutcome, error: unknown): Admission {
    this.log.note(outcome);
    this.release();
    return { kind: 'refused', error };
  }

  // ---- bookkeeping ----

  private get settlementContext(): SettlementContext {
    const { ttlSeconds, clock, sleep } = this.settings;
    return { journal: this.journal, ttlSeconds, clock, sleep };
  }

  /** The settlement of a running attempt, with what its failures answer. */
  private running(): SettlementFailures {
    if (!this.settling) throw new IdempotencyError('no-scope', 'The attempt holds no scope');
    return this.settling;
  }

  private leaseMs(): number {
    return leaseMsFor(this.settings, this.durable, this.remainingTimeMs);
  }

  /** `<tenant>#<operation>`, or the consumer of a queue; behind `<lambdaTenant>|` under Lambda tenant isolation. */
  private get scopeName(): string {
    return scopeNameOf(this.request, this.lambdaTenant);
  }

  /** The scope stops answering `idempotencyOf(context)` once the attempt is being settled. */
  private release(): void {
    if (this.context) unbindScope(this.context);
  }
}

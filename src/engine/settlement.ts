import { JournalUnavailableError, RecordUnreadableError, type ResponseNotSerializableError } from '../core/index.js';
import {
  newLeaseToken,
  RecordStatus,
  type Journal,
  type JournalRecord,
  type StagedCommitResult,
} from '../journal/index.js';
import { decide, unreadableAsFound, type Decision } from './decision.js';
import { AttemptScope, type AttemptScopeInit } from './scope.js';
import { storeOrMark, type Stored } from './stored-outcome.js';

/**
 * How an attempt's outcome reaches the journal, one strategy per way of holding a key:
 * {@link LeasedSettlement} completes the record the attempt reserved, fenced on its lease token;
 * {@link StagedOnlySettlement} holds nothing while the handler runs and claims the key with the
 * transaction that commits the outcome. A strategy writes and reports what happened as a value;
 * the attempt that owns it decides what that means for the answer, the log line and the metrics.
 */

/** What became of an outcome a settlement stored. */
export type StoreResult =
  | {
      readonly kind: 'stored';
      /** The outcome as stored (the marker of one that could not be kept). */
      readonly stored: unknown;
      /** Set when the response is not JSON: the first caller gets this error, as every replay will. */
      readonly unserializable?: ResponseNotSerializableError;
      /** True when this write claimed the key (a staged-only commit): the attempt counts as new. */
      readonly claimedKey: boolean;
    }
  /** The key was not this attempt's to complete (a staged-only commit refused): the record found decides. */
  | { readonly kind: 'found'; readonly decision: Decision };

/** What letting a record go without an outcome did. */
export interface LetGoResult {
  /** True when an effect had begun, so the record was marked `UNKNOWN` instead of released. */
  readonly markedUnknown: boolean;
  /** True when held claims could not be let go (they go stale and are taken over later). */
  readonly claimsLeft: boolean;
}

/** One way of settling an attempt (see the module comment). */
export interface Settlement {
  /** The scope the handler runs with. */
  readonly scope: AttemptScope;
  /**
   * Whether the handler's own answer may stand when its completion write failed: only when
   * nothing else was to commit with it (a leased record with no queued writes, which its lease
   * resolves later).
   */
  readonly answersUncommitted: boolean;
  /**
   * Stores the outcome with the queued writes.
   * @throws LeaseLostError, UniqueConflictError, WriteConflictError, JournalUnavailableError,
   *   RecordUnreadableError, or the error of a staged write DynamoDB refused
   */
  store(response: unknown): Promise<StoreResult>;
  /** Lets the record go without an outcome: released, or `UNKNOWN` once an effect may have happened. */
  letGo(): Promise<LetGoResult>;
}

/** What a settlement needs besides its scope. */
export interface SettlementContext {
  /** The attempt's view of the journal (calls counted). */
  readonly journal: Journal;
  readonly ttlSeconds: number;
  readonly clock: () => number;
  readonly sleep: (ms: number) => Promise<void>;
}

/** The settlement of an attempt holding a lease on its record (`effects: 'any'`). */
export class LeasedSettlement implements Settlement {
  constructor(
    readonly scope: AttemptScope,
    private readonly context: SettlementContext,
  ) {}

  get answersUncommitted(): boolean {
    return !this.scope.hasWrites;
  }

  async store(response: unknown): Promise<StoreResult> {
    const { scope } = this;
    const { journal, ttlSeconds } = this.context;
    const writes = scope.hasWrites
      ? {
          staged: scope.staged,
          uniqueClaims: scope.uniqueClaims,
          outbox: scope.outbox,
          heldClaims: scope.heldClaims,
          // Once the effect began, every held claim is pinned (beginEffect pinned them, later holds were taken pinned).
          heldClaimsPinned: scope.effectStarted,
        }
      : undefined;
    const { stored, unserializable } = await storeOrMark(response, (value) =>
      journal.complete({ pk: scope.pk, leaseToken: scope.leaseToken, response: value, ttlSeconds, writes }),
    );
    return { kind: 'stored', stored, unserializable, claimedKey: false };
  }

  async letGo(): Promise<LetGoResult> {
    const { scope } = this;
    const { journal } = this.context;
    // Held claims outlive an UNKNOWN record: they guard the effect that may have happened.
    if (scope.effectStarted) {
      await journal.markUnknown(scope.pk, scope.leaseToken);
      return { markedUnknown: true, claimsLeft: false };
    }
    await journal.release(scope.pk, scope.leaseToken);
    const claimsLeft = await scope.letGoHeldClaims().then(
      () => false,
      () => true,
    );
    return { markedUnknown: false, claimsLeft };
  }
}

/**
 * How often a commit cancelled by a concurrent transaction, or refused by a record that changed
 * in between, is decided and sent again before the attempt answers 503.
 */
const MAX_COMMIT_RACES = 3;
/** Upper bound of the first jittered pause after a cancelled commit, in milliseconds; it doubles per race. */
const RACE_PAUSE_MS = 10;

/**
 * The settlement of a staged-only attempt: one `TransactWriteItems` commits its staged writes,
 * claims and outbox events with the `COMPLETED` record, on condition that the key is free
 * (`stagedCommitClaimable`). A refused commit hands back the record found, decided by
 * {@link decide} whatever the staged writes' own reasons; a commit cancelled by a concurrent
 * transaction is decided on what that transaction wrote once it landed.
 */
export class StagedOnlySettlement implements Settlement {
  readonly answersUncommitted = false;

  constructor(
    readonly scope: AttemptScope,
    private readonly context: SettlementContext,
  ) {}

  /**
   * The scope of a staged-only attempt on `pk`: its record is the one the commit will write, with
   * a fresh commit token, and stable ids derive from when the attempt began.
   */
  static scopeFor(
    init: Omit<AttemptScopeInit, 'record' | 'recovering' | 'leaseMs' | 'leased'> & {
      readonly pk: string;
      readonly fingerprint: string;
    },
  ): AttemptScope {
    const { pk, fingerprint, ...rest } = init;
    const nowEpochMs = init.clock();
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
    return new AttemptScope({ ...rest, record, recovering: false, leased: false, leaseMs: () => 0 });
  }

  async store(response: unknown): Promise<StoreResult> {
    for (let races = 0; ;) {
      // Refused before anything was sent, a response that cannot be kept commits as a marker with the writes.
      const sent: Stored<StagedCommitResult> = await storeOrMark(response, (value) => this.send(value));
      const { result, stored, unserializable } = sent;
      if (result.kind === 'committed') return { kind: 'stored', stored, unserializable, claimedKey: true };
      let found: JournalRecord | RecordUnreadableError | undefined;
      if (result.kind === 'refused') {
        found = result.record;
      } else {
        // Cancelled by a concurrent transaction: once it has landed, the record it wrote decides.
        if (++races > MAX_COMMIT_RACES)
          throw new JournalUnavailableError(`The commit met a concurrent transaction ${races} times`);
        await this.context.sleep(Math.random() * RACE_PAUSE_MS * 2 ** races);
        found = await this.context.journal.get(this.scope.pk).catch(unreadableAsFound);
        // An SDK resend of ours, cancelled by our own commit still in flight: the record is ours.
        if (!(found instanceof RecordUnreadableError) && found?.leaseToken === this.scope.leaseToken)
          return { kind: 'stored', stored, claimedKey: true };
      }
      const decision = decide(found, {
        fingerprint: this.scope.fingerprint,
        nowEpochMs: this.context.clock(),
        mode: 'staged-only',
        recoverHook: false,
      });
      if (decision.kind !== 'claimable') return { kind: 'found', decision };
      // Gone, or claimable since the commit was refused (it changed in between): commit again.
      if (result.kind === 'refused' && ++races > MAX_COMMIT_RACES)
        throw new JournalUnavailableError('The commit kept meeting changed records');
    }
  }

  /** Nothing was written before the commit: there is nothing to let go. */
  async letGo(): Promise<LetGoResult> {
    return { markedUnknown: false, claimsLeft: false };
  }

  private send(response: unknown): Promise<StagedCommitResult> {
    const { scope } = this;
    return this.context.journal.commitStaged({
      pk: scope.pk,
      fingerprint: scope.fingerprint,
      commitToken: scope.leaseToken,
      createdAtEpochMs: scope.createdAtEpochMs,
      response,
      ttlSeconds: this.context.ttlSeconds,
      writes: { staged: scope.staged, uniqueClaims: scope.uniqueClaims, outbox: scope.outbox },
    });
  }
}

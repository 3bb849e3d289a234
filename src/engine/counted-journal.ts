import type {
  Completion,
  Evidence,
  Journal,
  JournalRecord,
  ReserveRequest,
  ReserveResult,
  Resolution,
  StagedCommit,
  StagedCommitResult,
  TakeOverRequest,
  UniqueHold,
} from '../journal/index.js';
import { JournalThrottledError, LeaseLostError } from '../core/index.js';
import { countReplicatedConflicts, type ConflictTally } from '../journal/index.js';
import { leaseMemoryOf, type LeaseMemory } from './lease-memory.js';
import { flightsOf, type SingleFlight } from './single-flight.js';

/**
 * The journal as one attempt sees it: every call is counted for the attempt's log line
 * (`journal_calls`), in one place, whoever makes it (the engine, the scope's `beginEffect`,
 * a heartbeat); a read of the previous library's table during a migration adds itself to the
 * same count. The cross-Region write conflicts a multi-Region journal meets inside those calls
 * are tallied too (`ReplicatedWriteConflict`), and so are the throttles they meet, wherever the
 * error goes next (a handler may catch a throttled `beginEffect`; `JournalThrottled` is counted
 * all the same). One is made per attempt; it holds no state of its own beyond the counts.
 *
 * It is also where a hot key stops costing a call per attempt: the calls that decide what an attempt meets go through
 * the process's {@link SingleFlight} of the journal, and a reservation a remembered live lease refuses
 * ({@link LeaseMemory}) makes no call at all. A call shared or answered from memory is not this attempt's: it is not
 * counted.
 */
export class CountedJournal implements Journal {
  /** Calls made through this view so far. */
  calls = 0;
  /** Cross-Region write conflicts met by those calls (a multi-Region journal only). */
  readonly replicatedConflicts: ConflictTally = { count: 0 };
  /** The throttles those calls met. */
  readonly throttles: JournalThrottledError[] = [];

  /** The wrapped journal's mode: `'strong'` for a multi-Region journal. */
  readonly multiRegion?: 'strong';
  /** `false` when the wrapped journal has no transactions (a Valkey journal). */
  readonly transactions?: false;

  private readonly flights: SingleFlight;
  private readonly leases: LeaseMemory;

  /** `clock`: epoch ms now, the guard's clock, which lease decisions read. */
  constructor(
    private readonly inner: Journal,
    private readonly clock: () => number = Date.now,
  ) {
    this.flights = flightsOf(inner);
    this.leases = leaseMemoryOf(inner);
    // An optional property set only when present, not a getter: a getter's `'strong' | undefined` does not satisfy
    // the interface's optional property in a consumer's declarations check under `exactOptionalPropertyTypes`.
    if (inner.multiRegion !== undefined) this.multiRegion = inner.multiRegion;
    if (inner.transactions !== undefined) this.transactions = inner.transactions;
  }

  private async counted<T>(call: () => Promise<T>): Promise<T> {
    this.calls++;
    try {
      // Only a multi-Region journal meets cross-Region conflicts; the tally's AsyncLocalStorage is not free (on Node.js
      // 20 and 22 its first run turns on async hooks for the whole process, a cost every later promise pays).
      if (this.inner.multiRegion !== 'strong') return await call();
      return await countReplicatedConflicts(this.replicatedConflicts, call);
    } catch (error) {
      if (error instanceof JournalThrottledError) this.throttles.push(error);
      throw error;
    }
  }

  /**
   * Reserves `request.pk`, or answers with the record in its way: from the lease memory (no call), from the
   * reservation of a concurrent attempt of the key (which this one lost to), or from its own call.
   */
  async reserve(request: ReserveRequest): Promise<ReserveResult> {
    const remembered = this.leases.refusal(request, this.clock());
    if (remembered) return { reserved: false, record: remembered };
    const { own, answer } = await this.flights.share(`reserve\u0000${request.pk}`, () =>
      this.counted(() => this.inner.reserve(request)),
    );
    this.leases.note(answer.record, this.clock());
    // One conditional write has one winner: a joiner lost to the leader's reservation, and meets it as found.
    return own || !answer.reserved ? answer : { reserved: false, record: answer.record };
  }

  /** Takes over an ended lease; a concurrent takeover of the same token by another attempt wins, this one loses. */
  async takeOver(request: TakeOverRequest): Promise<JournalRecord> {
    const { own, answer } = await this.flights.share(`take-over\u0000${request.pk}\u0000${request.expectedToken}`, () =>
      this.counted(() => this.inner.takeOver(request)),
    );
    if (!own) throw new LeaseLostError();
    this.leases.note(answer, this.clock());
    return answer;
  }

  heartbeat(pk: string, leaseToken: string, leaseMs: number): Promise<number> {
    return this.counted(() => this.inner.heartbeat(pk, leaseToken, leaseMs));
  }

  beginEffect(pk: string, leaseToken: string, effectName: string): Promise<void> {
    return this.counted(() => this.inner.beginEffect(pk, leaseToken, effectName));
  }

  recordEvidence(pk: string, leaseToken: string, evidence: Evidence): Promise<void> {
    return this.counted(() => this.inner.recordEvidence(pk, leaseToken, evidence));
  }

  // The calls that end this process's own lease forget it whatever they answer: a completion whose answer was lost may
  // well have landed, and a memory that outlived it would refuse the retry the journal would replay.
  complete(completion: Completion): Promise<void> {
    return this.counted(() => this.inner.complete(completion)).finally(() => this.leases.forget(completion.pk));
  }

  markUnknown(pk: string, leaseToken: string): Promise<void> {
    return this.counted(() => this.inner.markUnknown(pk, leaseToken)).finally(() => this.leases.forget(pk));
  }

  /** Marks an abandoned record `UNKNOWN`; a concurrent attempt marking the same token wins, this one loses. */
  async markAbandonedUnknown(pk: string, leaseToken: string): Promise<JournalRecord> {
    const { own, answer } = await this.flights.share(`mark-abandoned\u0000${pk}\u0000${leaseToken}`, () =>
      this.counted(() => this.inner.markAbandonedUnknown(pk, leaseToken)),
    );
    if (!own) throw new LeaseLostError();
    this.leases.forget(pk);
    return answer;
  }

  release(pk: string, leaseToken: string): Promise<void> {
    return this.counted(() => this.inner.release(pk, leaseToken)).finally(() => this.leases.forget(pk));
  }

  holdUnique(hold: UniqueHold): Promise<void> {
    return this.counted(() => this.inner.holdUnique(hold));
  }

  pinUnique(hold: UniqueHold): Promise<void> {
    return this.counted(() => this.inner.pinUnique(hold));
  }

  letGoUnique(hold: UniqueHold): Promise<void> {
    return this.counted(() => this.inner.letGoUnique(hold));
  }

  /** Reads the record of `pk`, sharing a read of it already in flight. */
  async get(pk: string): Promise<JournalRecord | undefined> {
    const { answer } = await this.flights.share(`get\u0000${pk}`, () => this.counted(() => this.inner.get(pk)));
    if (answer) this.leases.note(answer, this.clock());
    else this.leases.forget(pk);
    return answer;
  }

  resolve(pk: string, resolution: Resolution): Promise<void> {
    return this.counted(() => this.inner.resolve(pk, resolution)).then(() => this.leases.forget(pk));
  }

  commitStaged(commit: StagedCommit): Promise<StagedCommitResult> {
    return this.counted(() => this.inner.commitStaged(commit));
  }
}

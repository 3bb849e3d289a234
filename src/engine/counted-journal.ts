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
import { countReplicatedConflicts, type ConflictTally } from '../journal/index.js';

/**
 * The journal as one attempt sees it: every call is counted for the attempt's log line
 * (`journal_calls`), in one place, whoever makes it (the engine, the scope's `beginEffect`,
 * a heartbeat); a read of the previous library's table during a migration adds itself to the
 * same count. The cross-Region write conflicts a multi-Region journal meets inside those calls
 * are tallied too (`ReplicatedWriteConflict`). One is made per attempt; it holds no state of its
 * own beyond the counts.
 */
export class CountedJournal implements Journal {
  /** Calls made through this view so far. */
  calls = 0;
  /** Cross-Region write conflicts met by those calls (a multi-Region journal only). */
  readonly replicatedConflicts: ConflictTally = { count: 0 };

  /** The wrapped journal's mode: `'strong'` for a multi-Region journal. */
  readonly multiRegion?: 'strong';
  /** `false` when the wrapped journal has no transactions (a Valkey journal). */
  readonly transactions?: false;

  constructor(private readonly inner: Journal) {
    // An optional property set only when present, not a getter: a getter's `'strong' | undefined` does not satisfy
    // the interface's optional property in a consumer's declarations check under `exactOptionalPropertyTypes`.
    if (inner.multiRegion !== undefined) this.multiRegion = inner.multiRegion;
    if (inner.transactions !== undefined) this.transactions = inner.transactions;
  }

  private counted<T>(call: () => Promise<T>): Promise<T> {
    this.calls++;
    // Only a multi-Region journal meets cross-Region conflicts; the tally's AsyncLocalStorage is not free (on Node.js
    // 20 and 22 its first run turns on async hooks for the whole process, a cost every later promise pays).
    if (this.inner.multiRegion !== 'strong') return call();
    return countReplicatedConflicts(this.replicatedConflicts, call);
  }

  reserve(request: ReserveRequest): Promise<ReserveResult> {
    return this.counted(() => this.inner.reserve(request));
  }

  takeOver(request: TakeOverRequest): Promise<JournalRecord> {
    return this.counted(() => this.inner.takeOver(request));
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

  complete(completion: Completion): Promise<void> {
    return this.counted(() => this.inner.complete(completion));
  }

  markUnknown(pk: string, leaseToken: string): Promise<void> {
    return this.counted(() => this.inner.markUnknown(pk, leaseToken));
  }

  markAbandonedUnknown(pk: string, leaseToken: string): Promise<JournalRecord> {
    return this.counted(() => this.inner.markAbandonedUnknown(pk, leaseToken));
  }

  release(pk: string, leaseToken: string): Promise<void> {
    return this.counted(() => this.inner.release(pk, leaseToken));
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

  get(pk: string): Promise<JournalRecord | undefined> {
    return this.counted(() => this.inner.get(pk));
  }

  resolve(pk: string, resolution: Resolution): Promise<void> {
    return this.counted(() => this.inner.resolve(pk, resolution));
  }

  commitStaged(commit: StagedCommit): Promise<StagedCommitResult> {
    return this.counted(() => this.inner.commitStaged(commit));
  }
}

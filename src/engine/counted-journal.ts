import type {
  CompletionWrites,
  Evidence,
  Journal,
  JournalRecord,
  ReserveRequest,
  ReserveResult,
  Resolution,
  StagedCommit,
  StagedCommitResult,
  UniqueHold,
} from '../journal/index.js';

/**
 * The journal as one attempt sees it: every call is counted for the attempt's log line
 * (`journal_calls`), in one place, whoever makes it (the engine, the scope's `beginEffect`,
 * a heartbeat); a read of the previous library's table during a migration adds itself to the
 * same count. One is made per attempt; it holds no state of its own beyond the count.
 */
export class CountedJournal implements Journal {
  /** Calls made through this view so far. */
  calls = 0;

  constructor(private readonly inner: Journal) {}

  reserve(request: ReserveRequest): Promise<ReserveResult> {
    this.calls++;
    return this.inner.reserve(request);
  }

  takeOver(pk: string, expectedToken: string, leaseMs: number, durableExecutionArn?: string): Promise<JournalRecord> {
    this.calls++;
    return this.inner.takeOver(pk, expectedToken, leaseMs, durableExecutionArn);
  }

  heartbeat(pk: string, leaseToken: string, leaseMs: number): Promise<number> {
    this.calls++;
    return this.inner.heartbeat(pk, leaseToken, leaseMs);
  }

  beginEffect(pk: string, leaseToken: string, effectName: string): Promise<void> {
    this.calls++;
    return this.inner.beginEffect(pk, leaseToken, effectName);
  }

  recordEvidence(pk: string, leaseToken: string, evidence: Evidence): Promise<void> {
    this.calls++;
    return this.inner.recordEvidence(pk, leaseToken, evidence);
  }

  complete(
    pk: string,
    leaseToken: string,
    response: unknown,
    ttlSeconds: number,
    writes?: CompletionWrites,
  ): Promise<void> {
    this.calls++;
    return this.inner.complete(pk, leaseToken, response, ttlSeconds, writes);
  }

  markUnknown(pk: string, leaseToken: string): Promise<void> {
    this.calls++;
    return this.inner.markUnknown(pk, leaseToken);
  }

  markAbandonedUnknown(pk: string, leaseToken: string): Promise<JournalRecord> {
    this.calls++;
    return this.inner.markAbandonedUnknown(pk, leaseToken);
  }

  release(pk: string, leaseToken: string): Promise<void> {
    this.calls++;
    return this.inner.release(pk, leaseToken);
  }

  holdUnique(hold: UniqueHold): Promise<void> {
    this.calls++;
    return this.inner.holdUnique(hold);
  }

  letGoUnique(hold: UniqueHold): Promise<void> {
    this.calls++;
    return this.inner.letGoUnique(hold);
  }

  get(pk: string): Promise<JournalRecord | undefined> {
    this.calls++;
    return this.inner.get(pk);
  }

  resolve(pk: string, resolution: Resolution): Promise<void> {
    this.calls++;
    return this.inner.resolve(pk, resolution);
  }

  commitStaged(commit: StagedCommit): Promise<StagedCommitResult> {
    this.calls++;
    return this.inner.commitStaged(commit);
  }
}

import { randomUUID } from 'node:crypto';
import {
  JournalUnavailableError,
  LeaseLostError,
  MemoryJournal,
  MultiRegionUnsupportedError,
  RecordStatus,
  type JournalRecord,
  type MemoryJournalOptions,
} from '../../../../src/index.js';
import { JournalGuard } from '../../../../src/journal/index.js';
import type {
  Completion,
  ReserveRequest,
  ReserveResult,
  StagedCommit,
  StagedCommitResult,
  TakeOverRequest,
  UniqueHold,
} from '../../../../src/journal/index.js';
import { uniquePk, type Journal, MEMORY_JOURNAL_TABLE } from '../../../../src/entries/journal.js';

/**
 * Journals that break one rule of the journal contract each, built on `MemoryJournal`: the
 * conformance suite must fail on exactly the cases that check that rule. Where the break needs a
 * write no public call can make (an unconditional write after a stale read), the mutant reaches
 * into MemoryJournal's record map, which is what a journal without a conditional write would do.
 */

type Records = Map<string, { -readonly [K in keyof JournalRecord]: JournalRecord[K] }>;
type Fenced = 'heartbeat' | 'beginEffect' | 'recordEvidence' | 'markUnknown' | 'release';

/** Lets every other attempt run before this one goes on: the gap between a read and a write. */
const yieldToOthers = () => new Promise<void>((resolve) => setImmediate(resolve));

class Mutant extends MemoryJournal {
  constructor(protected readonly options: { clock: () => number }) {
    super(options as MemoryJournalOptions);
  }

  /** MemoryJournal's records, written here without its conditions. */
  protected get store(): Records {
    return (this as unknown as { records: Records }).records;
  }

  /** The token holding `pk` now, so a call made with any token lands as the holder's. */
  protected async currentToken(pk: string, fallback: string): Promise<string> {
    return (await this.get(pk))?.leaseToken ?? fallback;
  }
}

/** `complete` lands with whatever token it is given. */
export class CompleteIgnoresToken extends Mutant {
  override async complete(completion: Completion): Promise<void> {
    return super.complete({ ...completion, leaseToken: await this.currentToken(completion.pk, completion.leaseToken) });
  }
}

/** `takeOver` takes any ended lease, whichever token it read. */
export class TakeOverIgnoresToken extends Mutant {
  override async takeOver(request: TakeOverRequest): Promise<JournalRecord> {
    return super.takeOver({ ...request, expectedToken: await this.currentToken(request.pk, request.expectedToken) });
  }
}

/** The other fenced writes, each landing with whatever token it is given. */
export function unfenced(method: Fenced): new (options: { clock: () => number }) => Journal {
  return class extends Mutant {
    override async heartbeat(pk: string, token: string, leaseMs: number) {
      return super.heartbeat(pk, method === 'heartbeat' ? await this.currentToken(pk, token) : token, leaseMs);
    }
    override async beginEffect(pk: string, token: string, name: string) {
      return super.beginEffect(pk, method === 'beginEffect' ? await this.currentToken(pk, token) : token, name);
    }
    override async recordEvidence(pk: string, token: string, evidence: Record<string, string | number>) {
      return super.recordEvidence(
        pk,
        method === 'recordEvidence' ? await this.currentToken(pk, token) : token,
        evidence,
      );
    }
    override async markUnknown(pk: string, token: string) {
      return super.markUnknown(pk, method === 'markUnknown' ? await this.currentToken(pk, token) : token);
    }
    override async release(pk: string, token: string) {
      return super.release(pk, method === 'release' ? await this.currentToken(pk, token) : token);
    }
  };
}

/** `takeOver` reads, then writes without a condition: two containers that both read the orphan both take it. */
export class TakeOverNotAtomic extends Mutant {
  override async takeOver({ pk, expectedToken, leaseMs }: TakeOverRequest): Promise<JournalRecord> {
    const seen = await this.get(pk);
    await yieldToOthers();
    const now = this.options.clock();
    const orphaned =
      seen?.status === RecordStatus.unknown ||
      (seen?.status === RecordStatus.inProgress && seen.leaseUntilEpochMs < now);
    if (!seen || seen.leaseToken !== expectedToken || !orphaned) throw new LeaseLostError(seen);
    const record = this.store.get(pk)!;
    Object.assign(record, {
      status: RecordStatus.inProgress,
      leaseToken: randomUUID(),
      leaseUntilEpochMs: now + leaseMs,
      attempt: seen.attempt + 1,
      updatedAtEpochMs: now,
    });
    return { ...record };
  }
}

/** `takeOver` does not wait for the lease to end. */
export class TakesLiveLeases extends Mutant {
  override async takeOver(request: TakeOverRequest): Promise<JournalRecord> {
    const record = this.store.get(request.pk);
    if (record?.status === RecordStatus.inProgress && record.leaseToken === request.expectedToken)
      record.leaseUntilEpochMs = 0;
    return super.takeOver(request);
  }
}

/** `takeOver` takes a completed record as if it were an orphaned one. */
export class TakesCompletedRecords extends Mutant {
  override async takeOver(request: TakeOverRequest): Promise<JournalRecord> {
    const record = this.store.get(request.pk);
    if (record?.status === RecordStatus.completed) record.status = RecordStatus.inProgress;
    return super.takeOver(request);
  }
}

/** `reserve` reads, then claims without a condition: attempts racing on a new key all win. */
export class ReserveNotAtomic extends Mutant {
  override async reserve(request: ReserveRequest): Promise<ReserveResult> {
    const seen = await this.get(request.pk);
    await yieldToOthers();
    if (!JournalGuard.claimable(seen, { nowEpochMs: this.options.clock() })) return { reserved: false, record: seen! };
    this.store.delete(request.pk);
    const result = await super.reserve(request);
    return result.reserved ? { ...result, replacedExpired: seen !== undefined } : result;
  }
}

/** `reserve` trusts expiry to the store's TTL: a record that is there holds its key, expired or not. */
export class ExpiryNotRead extends Mutant {
  override async reserve(request: ReserveRequest): Promise<ReserveResult> {
    const existing = await this.get(request.pk);
    if (existing) return { reserved: false, record: existing };
    return super.reserve(request);
  }
}

/** `reserve` claims an `UNKNOWN` record, as if it had expired. */
export class UnknownExpires extends Mutant {
  override async reserve(request: ReserveRequest): Promise<ReserveResult> {
    if ((await this.get(request.pk))?.status === RecordStatus.unknown) {
      this.store.delete(request.pk);
      return { ...(await super.reserve(request)), replacedExpired: true } as ReserveResult;
    }
    return super.reserve(request);
  }
}

/** A refused reserve returns the record without its response. */
export class RefusedReserveWithoutResponse extends Mutant {
  override async reserve(request: ReserveRequest): Promise<ReserveResult> {
    const result = await super.reserve(request);
    return result.reserved ? result : { reserved: false, record: { ...result.record, response: undefined } };
  }
}

/** `complete` stores its response with object keys sorted: equal as data, not byte for byte. */
export class ResponseKeysSorted extends Mutant {
  override async complete(completion: Completion): Promise<void> {
    return super.complete({ ...completion, response: sortKeys(completion.response) });
  }
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((key) => [key, sortKeys((value as Record<string, unknown>)[key])]),
  );
}

/** The holder's `complete` overwrites a completed record. */
export class CompletionOverwrites extends Mutant {
  override async complete(completion: Completion): Promise<void> {
    const record = this.store.get(completion.pk);
    if (record?.status === RecordStatus.completed && record.leaseToken === completion.leaseToken)
      record.status = RecordStatus.inProgress;
    return super.complete(completion);
  }
}

/** The holder's `release` deletes its record even once completed. */
export class ReleasesCompletedRecords extends Mutant {
  override async release(pk: string, token: string): Promise<void> {
    const record = this.store.get(pk);
    if (record?.status === RecordStatus.completed && record.leaseToken === token) this.store.delete(pk);
    else return super.release(pk, token);
  }
}

/** `beginEffect` leaves the record's expiry in place: a record whose effect began would expire and run again. */
export class EffectKeepsExpiry extends Mutant {
  override async beginEffect(pk: string, token: string, name: string): Promise<void> {
    const expiresAtEpochSeconds = this.store.get(pk)?.expiresAtEpochSeconds;
    await super.beginEffect(pk, token, name);
    const record = this.store.get(pk);
    if (record) record.expiresAtEpochSeconds = expiresAtEpochSeconds;
  }
}

/** `markAbandonedUnknown` does not wait for the lease to end. */
export class AbandonsLiveLeases extends Mutant {
  override async markAbandonedUnknown(pk: string, token: string): Promise<JournalRecord> {
    const record = this.store.get(pk);
    if (record?.status === RecordStatus.inProgress && record.leaseToken === token) record.leaseUntilEpochMs = 0;
    return super.markAbandonedUnknown(pk, token);
  }
}

/** An operator's `resolve` acts on live leases too. */
export class ResolvesLiveLeases extends Mutant {
  override async resolve(...args: Parameters<Journal['resolve']>): Promise<void> {
    const record = this.store.get(args[0]);
    if (record?.status === RecordStatus.inProgress) record.leaseUntilEpochMs = 0;
    return super.resolve(...args);
  }
}

/** The key MemoryJournal files a claim under. */
const claimKey = (hold: UniqueHold) => JSON.stringify([uniquePk(hold.claim.name, hold.claim.value)]);

/** `holdUnique` takes a claim whoever holds it. */
export class HoldsAnyClaim extends Mutant {
  override async holdUnique(hold: UniqueHold): Promise<void> {
    this.tables.get(MEMORY_JOURNAL_TABLE)?.delete(claimKey(hold));
    return super.holdUnique(hold);
  }
}

/** `letGoUnique` deletes the claim whoever holds it, permanent claims included. */
export class LetsGoAnyClaim extends Mutant {
  override async letGoUnique(hold: UniqueHold): Promise<void> {
    this.tables.get(MEMORY_JOURNAL_TABLE)?.delete(claimKey(hold));
  }
}

/** `letGoUnique` keeps the claim: a released attempt's hold would block the key's every later request. */
export class LetGoKeepsClaims extends Mutant {
  override async letGoUnique(): Promise<void> {}
}

/** `commitStaged` replaces whatever record holds the key. */
export class CommitStagedOverwrites extends Mutant {
  override async commitStaged(commit: StagedCommit): Promise<StagedCommitResult> {
    this.store.delete(commit.pk);
    return super.commitStaged(commit);
  }
}

/** A journal without transactions, refusing what needs one before anything is written: it conforms. */
export class WithoutTransactions extends Mutant {
  override async complete(completion: Completion): Promise<void> {
    if (completion.writes?.staged.length) throw new MultiRegionUnsupportedError('stage()');
    if (completion.writes?.uniqueClaims.length) throw new MultiRegionUnsupportedError('claimUnique()');
    return super.complete(completion);
  }

  override async commitStaged(): Promise<StagedCommitResult> {
    throw new MultiRegionUnsupportedError("effects: 'staged-only'");
  }
}

/** A journal without transactions that drops staged writes and claims instead of refusing them. */
export class DropsWhatNeedsTransactions extends WithoutTransactions {
  override async complete(completion: Completion): Promise<void> {
    const writes = completion.writes && { ...completion.writes, staged: [], uniqueClaims: [] };
    return super.complete({ ...completion, writes });
  }
}

/** A journal without transactions that refuses with `JournalUnavailableError`: a caller would retry forever. */
export class RefusesAsUnavailable extends WithoutTransactions {
  override async commitStaged(): Promise<StagedCommitResult> {
    throw new JournalUnavailableError('transactions are not available');
  }
}

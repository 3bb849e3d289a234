import { RecordStatus, type Journal, type JournalRecord, type ReserveRequest } from '../journal/index.js';
import { decide } from './decision.js';

/** Keys remembered at most per journal: a storm is on few keys, and a memory forgotten only costs a call. */
const MAX_REMEMBERED_LEASES = 10_000;
/**
 * Longest a lease is remembered, in milliseconds. A lease held by another process may end long before `leaseUntil`
 * (its holder completes in milliseconds under a 15-minute lease), and a memory cannot see that: a short one keeps the
 * process from refusing retries that the journal would answer with a replay, at one call a second per hot key.
 */
export const LEASE_MEMORY_MS = 1_000;

interface Remembered {
  readonly record: JournalRecord;
  readonly untilEpochMs: number;
}

/**
 * Live leases a process has seen, remembered for a short while, never past the moment they may have ended. Once an
 * attempt met a record held by a live lease, further attempts of that key in the process are refused (409) from
 * memory, with no journal call, for {@link LEASE_MEMORY_MS} and never past the lease's `leaseUntil`, read by the
 * guard's clock as every lease decision is. A memory only refuses, never admits or replays:
 * - it answers only a request with the remembered record's fingerprint, and only when {@link decide} says that record
 *   is `in-progress` for it (so a durable execution's own record, which it would resume, is asked of the journal);
 *   another payload is asked of the journal too, since the lease may have been released and the key freed, and 422 is
 *   an answer a caller does not retry;
 * - it answers only the reservation, never the polls of the `wait` policy, so a wait still sees the outcome the
 *   moment it is stored;
 * - a lease this process ends (completed, released, marked `UNKNOWN`) is forgotten at once, and a record read that is
 *   not in progress under a live lease replaces what was remembered.
 * Afterwards the journal is asked again (past `leaseUntil`, the takeover rules decide).
 */
export class LeaseMemory {
  private readonly leases = new Map<string, Remembered>();

  /** Remembers `record` if it is in progress under a lease live at `nowEpochMs`; forgets its key otherwise. */
  note(record: JournalRecord, nowEpochMs: number): void {
    this.leases.delete(record.pk);
    if (record.status !== RecordStatus.inProgress || record.leaseUntilEpochMs <= nowEpochMs) return;
    if (this.leases.size >= MAX_REMEMBERED_LEASES) this.leases.delete(this.leases.keys().next().value as string);
    const untilEpochMs = Math.min(record.leaseUntilEpochMs, nowEpochMs + LEASE_MEMORY_MS);
    this.leases.set(record.pk, { record: structuredClone(record), untilEpochMs });
  }

  /** Forgets the lease of `pk`: the process ended it, or does not know it any more. */
  forget(pk: string): void {
    this.leases.delete(pk);
  }

  /**
   * The remembered record that refuses `request` at `nowEpochMs` (its own copy), or undefined when only the journal
   * can answer.
   */
  refusal(request: ReserveRequest, nowEpochMs: number): JournalRecord | undefined {
    const remembered = this.leases.get(request.pk);
    if (!remembered) return undefined;
    const { record } = remembered;
    if (remembered.untilEpochMs <= nowEpochMs) {
      this.leases.delete(request.pk);
      return undefined;
    }
    if (record.fingerprint !== request.fingerprint) return undefined;
    const decision = decide(record, {
      fingerprint: request.fingerprint,
      nowEpochMs,
      mode: 'leased',
      recoverHook: false,
      durableExecutionArn: request.durableExecutionArn,
    });
    if (decision.kind !== 'in-progress') return undefined;
    return structuredClone(record);
  }
}

/**
 * The `Retry-After` of an in-progress answer on `record`: the configured seconds, but never past the moment the live
 * lease that refuses may end (at least 1 s), so a caller that honours it comes back once the journal can answer
 * otherwise. A refusal from the {@link LeaseMemory} is one of these: it is served until that same moment.
 */
export function inProgressRetryAfterSeconds(
  record: JournalRecord | undefined,
  configuredSeconds: number,
  nowEpochMs: number,
): number {
  if (!record || record.status !== RecordStatus.inProgress || record.leaseUntilEpochMs <= nowEpochMs)
    return configuredSeconds;
  const untilEndSeconds = Math.ceil((record.leaseUntilEpochMs - nowEpochMs) / 1000);
  return Math.min(configuredSeconds, Math.max(1, untilEndSeconds));
}

const memories = new WeakMap<Journal, LeaseMemory>();

/** The lease memory of one journal instance, shared by every guard of the process that uses it. */
export function leaseMemoryOf(journal: Journal): LeaseMemory {
  let found = memories.get(journal);
  if (!found) {
    found = new LeaseMemory();
    memories.set(journal, found);
  }
  return found;
}

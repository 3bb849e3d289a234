import { AsyncLocalStorage } from 'node:async_hooks';

/*
 * The engine counts the cross-Region conflicts an attempt's journal calls meet; the multi-Region
 * item calls report each one here. Apart from them, so a single-Region handler, which never meets
 * a conflict, never bundles the multi-Region calls to count none.
 */

/** A tally of the cross-Region conflicts met while it is the active one (see {@link countReplicatedConflicts}). */
export interface ConflictTally {
  count: number;
}

const tallies = new AsyncLocalStorage<ConflictTally>();

/**
 * Runs `work` with `tally` counting every cross-Region write conflict the journal meets inside
 * it (including those it retried away), so an attempt can emit its `ReplicatedWriteConflict`
 * metric without the journal knowing about attempts.
 *
 * @example
 * const tally = { count: 0 };
 * await countReplicatedConflicts(tally, () => journal.complete({ pk, leaseToken, response, ttlSeconds: 60 }));
 */
export function countReplicatedConflicts<T>(tally: ConflictTally, work: () => Promise<T>): Promise<T> {
  return tallies.run(tally, work);
}

/** Counts one cross-Region write conflict on the tally active where it was met, if any. */
export function tallyReplicatedConflict(): void {
  const tally = tallies.getStore();
  if (tally) tally.count++;
}

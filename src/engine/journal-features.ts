import { JournalFeatureUnsupportedError, MultiRegionUnsupportedError } from '../core/index.js';
import type { Journal } from '../journal/index.js';

/** A guard feature some journals cannot offer: each needs a DynamoDB transaction, or (`publish()`) its outbox. */
export type JournalFeature = 'stage()' | 'claimUnique()' | 'publish()' | "effects: 'staged-only'";

/**
 * Refuses `feature` where it is called or configured when `journal`'s store cannot do it: a
 * multi-Region journal has no transactions (its outbox events ride in the record, so it
 * publishes); a journal with `transactions: false` (Valkey) has neither transactions nor an outbox.
 *
 * @throws MultiRegionUnsupportedError, JournalFeatureUnsupportedError
 */
export function assertJournalOffers(
  journal: Pick<Journal, 'multiRegion' | 'transactions'>,
  feature: JournalFeature,
): void {
  if (journal.multiRegion === 'strong' && feature !== 'publish()') throw new MultiRegionUnsupportedError(feature);
  if (journal.transactions === false) throw new JournalFeatureUnsupportedError(feature);
}

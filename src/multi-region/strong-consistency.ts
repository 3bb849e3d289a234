import {
  journalMigrationFor,
  outboxEventsBytes,
  ReplicatedItemCalls,
  roomLeftForEvents,
  singleItemCompletionUpdate,
  singleItemLayout,
  type MultiRegionMode,
} from '../journal/index.js';

/**
 * The `multiRegion` option of a `DynamoDBJournal` on a DynamoDB global table with multi-Region
 * strong consistency (MRSC), the one journal of an API served from several Regions: every write
 * is a single-item conditional write (completion is one fenced `UpdateItem` carrying the outbox
 * events), cross-Region write conflicts are retried within a bound, and `stage()`,
 * `claimUnique()` and `effects: 'staged-only'` are refused with `MultiRegionUnsupportedError`
 * (MRSC has no transactions). Point each Region's functions at their local replica. See
 * docs/multi-region.md.
 *
 * @example
 * import { DynamoDBJournal } from 'idemkit';
 * import { strongConsistency } from 'idemkit/multi-region';
 * const journal = new DynamoDBJournal({ tableName: 'payments-journal-global', multiRegion: strongConsistency() });
 */
export function strongConsistency(): MultiRegionMode {
  const mode: MultiRegionMode = {
    consistency: 'strong',
    itemCalls: (client, tableName) => new ReplicatedItemCalls(client, tableName),
    migration: journalMigrationFor,
    completion: Object.freeze({
      layout: singleItemLayout,
      update: singleItemCompletionUpdate,
      eventsBytes: outboxEventsBytes,
      roomLeft: roomLeftForEvents,
    }),
  };
  return Object.freeze(mode);
}

/**
 * `idemkit/multi-region`: one journal for an API served from several Regions, on a DynamoDB
 * global table with multi-Region strong consistency (MRSC). `strongConsistency()` is the
 * `multiRegion` option of `DynamoDBJournal`; `journalSweeper` is the scheduled function that
 * deletes expired records (MRSC tables have no TTL). An entry of its own, so a single-Region
 * handler never bundles it. See docs/multi-region.md.
 *
 * @packageDocumentation
 */
export { strongConsistency } from '../multi-region/index.js';
export {
  type MultiRegionMode,
  REPLICATED_CONFLICT_RETRY,
  OUTBOX_IN_RECORD_MAX_BYTES,
  type JournalMigrationOptions,
} from '../journal/index.js';
export * from '../sweeper/index.js';

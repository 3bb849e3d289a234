import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { ItemCalls } from './item-calls.js';
import type { journalMigrationFor } from './journal-migration.js';
import type {
  outboxEventsBytes,
  roomLeftForEvents,
  singleItemCompletionUpdate,
  singleItemLayout,
} from './single-item-completion.js';

/**
 * How a `DynamoDBJournal` writes to a global table with multi-Region strong consistency (MRSC),
 * which has no transactions: the item calls that bound cross-Region write conflicts, the one-item
 * completion, and the migration from a single-Region journal. `strongConsistency()` from
 * `idemkit/multi-region` builds it; the journal only holds it, so a single-Region journal never
 * bundles the code.
 *
 * @example
 * import { strongConsistency } from 'idemkit/multi-region';
 * const journal = new DynamoDBJournal({ tableName: 'payments-journal-global', multiRegion: strongConsistency() });
 */
export interface MultiRegionMode {
  /** The table's consistency across Regions: `'strong'` (MRSC) is the only one a journal can keep its promise on. */
  readonly consistency: 'strong';
  /**
   * The item calls of the table: single-item writes, cross-Region conflicts retried within a bound, no transactions.
   * @internal
   */
  readonly itemCalls: (client: DynamoDBClient | DynamoDBDocumentClient, tableName: string) => ItemCalls;
  /**
   * The migration from a single-Region journal, when the journal is given `migrateFrom`.
   * @internal
   */
  readonly migration: typeof journalMigrationFor;
  /**
   * The completion as one fenced `UpdateItem` of the record, its outbox events inside it.
   * @internal
   */
  readonly completion: {
    readonly layout: typeof singleItemLayout;
    readonly update: typeof singleItemCompletionUpdate;
    readonly eventsBytes: typeof outboxEventsBytes;
    readonly roomLeft: typeof roomLeftForEvents;
  };
}

export * from './schema.js';
export type {
  Completion,
  CompletionWrites,
  Evidence,
  Journal,
  JournalRecord,
  OutboxEvent,
  ReserveRequest,
  ReserveResult,
  Resolution,
  StagedCommit,
  StagedCommitResult,
  TakeOverRequest,
  TransactItem,
  UniqueClaim,
  UniqueHold,
} from './journal.js';
export { DynamoDBJournal, type DynamoDBJournalOptions } from './dynamodb-journal.js';
export type { JournalMigrationOptions } from './journal-migration.js';
export { MemoryJournal, MEMORY_JOURNAL_TABLE, type MemoryJournalOptions } from './memory-journal.js';
export { expiryFromNow, isExpired, newLeaseToken } from './record-lifetime.js';
export { isConditionFailure, journalOperationOf, type JournalOperation } from './item-calls.js';
export { DispatchedMarker } from './dispatched-marker.js';
export { assertStageable, TRANSACTION_MAX_ITEMS } from './staged-commit.js';
export { recordFromItem } from './record-item.js';
export { fromAttributeMap } from './attribute-values.js';
export {
  guardedItemOf,
  JournalCondition,
  JournalGuard,
  type GuardedItem,
  type GuardValues,
  type JournalConditionName,
} from './conditions.js';
export { OUTBOX_RETENTION_SECONDS } from './completion-writes.js';
export { storedJsonForm } from './stored-response.js';
export { countReplicatedConflicts, type ConflictTally } from './conflict-tally.js';
export {
  isReplicatedWriteConflict,
  REPLICATED_CONFLICT_RETRY,
  REPLICATED_WRITE_CONFLICT,
  ReplicatedItemCalls,
} from './replicated-writes.js';
export { OUTBOX_IN_RECORD_MAX_BYTES } from './single-item-completion.js';
export { journalMigrationFor } from './journal-migration.js';
export type { MultiRegionMode } from './multi-region-mode.js';
export {
  outboxEventsBytes,
  roomLeftForEvents,
  singleItemCompletionUpdate,
  singleItemLayout,
} from './single-item-completion.js';
export {
  journalConformance,
  type CreateJournal,
  type CreateJournalOptions,
  type JournalConformanceOptions,
} from './conformance/index.js';
export { COMPRESS_ABOVE_BYTES, responseJson } from './stored-response.js';
export { reservationItem } from './record-item.js';
export { leaseAwareExpiry } from './record-lifetime.js';
export { heldClaimItem } from './unique-holds.js';

export * from './schema.js';
export type {
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
  TransactItem,
  UniqueClaim,
} from './journal.js';
export { DynamoDBJournal, type DynamoDBJournalOptions } from './dynamodb-journal.js';
export { MemoryJournal, MEMORY_JOURNAL_TABLE, type MemoryJournalOptions } from './memory-journal.js';
export { isClaimable, isExpired, newLeaseToken } from './items.js';
export { isClaimableByCommit } from './staged-commit.js';
export { DispatchedMarker } from './dispatched-marker.js';
export { storedJsonForm } from './response-codec.js';

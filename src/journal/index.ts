export * from './schema.js';
export type { CompletionWrites, Evidence, Journal, JournalRecord, OutboxEvent, ReserveRequest, ReserveResult, Resolution, TransactItem, UniqueClaim } from './journal.js';
export { DynamoDBJournal, type DynamoDBJournalOptions } from './dynamodb-journal.js';
export { MemoryJournal, MEMORY_JOURNAL_TABLE, type MemoryJournalOptions } from './memory-journal.js';
export { isClaimable } from './items.js';
export { DispatchedMarker } from './dispatched-marker.js';
export { storedJsonForm } from './response-codec.js';

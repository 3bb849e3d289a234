/**
 * `idemkit/journal`: for those who write a journal of their own, or read the records one holds.
 * The storage interface a guard runs on (`Journal`, what it is asked and what it answers), the
 * record schema (prefixes, attributes, the record keys and how to read them back), and
 * `journalConformance`, the behaviour tests every journal must pass, for Jest, Vitest or
 * `node:test`. A guarded handler needs none of it: the root entry holds the journals themselves.
 *
 * @packageDocumentation
 */
export {
  journalConformance,
  type CreateJournal,
  type CreateJournalOptions,
  type JournalConformanceOptions,
  MemoryJournal,
  MEMORY_JOURNAL_TABLE,
  type MemoryJournalOptions,
  type Completion,
  type CompletionWrites,
  type Evidence,
  type Journal,
  type JournalRecord,
  type OutboxEvent,
  type ReserveRequest,
  type ReserveResult,
  type Resolution,
  type StagedCommit,
  type StagedCommitResult,
  type TakeOverRequest,
  type TransactItem,
  type UniqueClaim,
  type UniqueHold,
  RecordPrefix,
  RecordStatus,
  RecordAttribute,
  RecordKind,
  PARTITION_KEY,
  TTL_ATTRIBUTE,
  requestPk,
  messagePk,
  uniquePk,
  outboxPk,
  keyScopeOf,
  type KeyScope,
  journalOperationOf,
  type JournalOperation,
} from '../journal/index.js';

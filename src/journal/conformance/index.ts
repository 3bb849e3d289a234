export {
  journalConformance,
  type CreateJournal,
  type CreateJournalOptions,
  type JournalConformanceOptions,
} from './journal-conformance.js';

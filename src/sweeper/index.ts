export {
  DEFAULT_JOURNAL_SWEEPER_OPTIONS,
  journalSweeper,
  type JournalSweeperOptions,
  type SweepReport,
} from './journal-sweeper.js';

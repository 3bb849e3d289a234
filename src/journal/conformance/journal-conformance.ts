import { assertKnownOptions, InvalidOptionsError, readFunction } from '../../core/index.js';
import type { Journal } from '../journal.js';
import { caseClock, freshClaim, freshKey, type ConformanceCase } from './conformance-case.js';
import { shown } from './conformance-check.js';
import { fencedWriteCases } from './fenced-write-cases.js';
import { operatorCases } from './operator-cases.js';
import { reservationCases } from './reservation-cases.js';
import { responseCases } from './response-cases.js';
import { refusalCases, transactionCases } from './transaction-cases.js';
import { takeoverCases } from './takeover-cases.js';
import { uniqueHoldCases } from './unique-hold-cases.js';

const OWNER = 'journalConformance';
const OPTION_NAMES = [
  'describe',
  'it',
  'beforeEach',
  'afterEach',
  'name',
  'transactions',
  'sharedStorage',
  'dispose',
] as const satisfies readonly (keyof JournalConformanceOptions)[];

/** What `createJournal` is given for each journal the suite builds. */
export interface CreateJournalOptions {
  /** Epoch milliseconds now, moved forward by the case: the journal must read time from it alone. */
  readonly clock: () => number;
}

/**
 * Builds one journal for a case (sync or async). It must read time from `options.clock`; it may
 * share its storage with every other journal it builds (the suite uses keys and claims no other case
 * or run uses).
 */
export type CreateJournal = (options: CreateJournalOptions) => Journal | Promise<Journal>;

/** Options of {@link journalConformance}: your test runner's functions, and what your journal can do. */
export interface JournalConformanceOptions {
  /** Your runner's `describe(name, fn)` (node:test, Jest and Vitest all have one). */
  readonly describe: (name: string, fn: () => void) => unknown;
  /** Your runner's `it(name, fn)`, given async callbacks. */
  readonly it: (name: string, fn: () => Promise<void>) => unknown;
  /**
   * Your runner's `beforeEach`. Accepted so a runner's four functions can be passed together; the
   * suite needs no set-up of its own, since every case builds its journals inside itself.
   * @default undefined
   */
  readonly beforeEach?: (fn: () => unknown) => unknown;
  /**
   * Your runner's `afterEach`: with {@link dispose}, the journals a case built are disposed there,
   * even when the case failed or timed out; without it, at the end of the case.
   * @default undefined
   */
  readonly afterEach?: (fn: () => Promise<void>) => unknown;
  /**
   * Name of the suite's outer `describe`.
   * @default 'Journal conformance'
   */
  readonly name?: string;
  /**
   * Whether the journal commits in transactions: uniqueness claims and staged writes with the
   * completion, and `commitStaged`. `false` for a journal that cannot (a Valkey journal, DynamoDB
   * with `multiRegion: strongConsistency()`): the suite then checks that each is refused with a typed error
   * before anything is written, instead of checking that it commits.
   * @default true
   */
  readonly transactions?: boolean;
  /**
   * Whether journals from separate `createJournal` calls see the same records (two containers on
   * one table). When they do, the races (concurrent reserves, takeovers, staged commits) run one
   * contender per journal; otherwise every contender goes through the case's one journal.
   * @default false
   */
  readonly sharedStorage?: boolean;
  /**
   * Called once for every journal the suite built, when its case is over (to close a client).
   * @default undefined (nothing to dispose)
   */
  readonly dispose?: (journal: Journal) => unknown;
}

/** The groups of cases a journal with (or without) transactions must pass, by concern. */
function groupsFor(transactions: boolean): readonly (readonly [string, readonly ConformanceCase[]])[] {
  return [
    ['reserve', reservationCases],
    ['takeOver', takeoverCases],
    ['fenced writes', fencedWriteCases],
    ['complete and replay', responseCases],
    ['markAbandonedUnknown and resolve', operatorCases],
    ['holdUnique and letGoUnique', uniqueHoldCases],
    transactions ? ['transactions', transactionCases] : ['without transactions', refusalCases],
  ];
}

/**
 * Registers the journal conformance suite: the behaviour of the `Journal` interface that a guard
 * relies on (atomic reservation, expiry read from `expiresAt`, fenced takeover and writes, stored
 * responses replayed byte for byte, operator resolution, uniqueness holds, and transactions or their
 * refusal), one test per behaviour, each on fresh journals from `createJournal` and a clock the case
 * moves forward (leases end and records expire without sleeping).
 *
 * It registers through the `describe` and `it` it is given and imports no test framework, so it runs
 * under node:test, Jest or Vitest. A failing case throws an `Error` naming the storage call, what
 * the contract expects, and what the journal did.
 *
 * @throws InvalidOptionsError for an unknown option name, or a missing `describe` or `it`
 * @example Jest (or Vitest, with its `describe` and `it`)
 * import { journalConformance } from 'idemkit/journal';
 *
 * journalConformance(({ clock }) => new MyJournal({ client, clock }), { describe, it, sharedStorage: true });
 * @example node:test
 * import { describe, it } from 'node:test';
 * import { journalConformance } from 'idemkit/journal';
 *
 * journalConformance(({ clock }) => new MyJournal({ client, clock }), { describe, it, transactions: false });
 */
export function journalConformance(createJournal: CreateJournal, options: JournalConformanceOptions): void {
  assertKnownOptions(OWNER, options, OPTION_NAMES);
  const build = readFunction(OWNER, 'createJournal', createJournal, undefined);
  const describe = readFunction(OWNER, 'describe', options.describe, undefined);
  const it = readFunction(OWNER, 'it', options.it, undefined);
  if (!build || !describe || !it) {
    throw new InvalidOptionsError(`${OWNER} needs createJournal, and the describe and it of your test runner`);
  }
  readFunction(OWNER, 'beforeEach', options.beforeEach, undefined);
  const afterEach = readFunction(OWNER, 'afterEach', options.afterEach, undefined);
  const dispose = readFunction(OWNER, 'dispose', options.dispose, undefined);
  const transactions = readFlag('transactions', options.transactions, true);
  const sharedStorage = readFlag('sharedStorage', options.sharedStorage, false);
  const name = options.name ?? 'Journal conformance';
  if (typeof name !== 'string' || name === '')
    throw new InvalidOptionsError(`${OWNER}: option 'name' must be a non-empty string`);

  // With afterEach, a case that times out still has its journals disposed: the hook runs whatever the case does.
  const disposeInHook = afterEach !== undefined && dispose !== undefined;
  /** Journals built by cases and not yet disposed: the afterEach hook takes them. */
  const undisposed: Journal[] = [];
  const disposeAll = async (journals: Journal[]) => {
    if (!dispose) return;
    const failures = (await Promise.allSettled(journals.map(async (journal) => dispose(journal)))).flatMap((outcome) =>
      outcome.status === 'rejected' ? [outcome.reason as unknown] : [],
    );
    if (failures.length > 0)
      throw new Error(`dispose() of a journal threw ${shown(failures[0])}`, { cause: failures[0] });
  };

  const runCase = async (conformanceCase: ConformanceCase) => {
    const clock = caseClock();
    const built: Journal[] = disposeInHook ? undisposed : [];
    const newJournal = async () => {
      const journal = await build({ clock: clock.now });
      if (typeof journal !== 'object' || journal === null || typeof journal.reserve !== 'function')
        throw new Error(`createJournal() should return a Journal, returned ${shown(journal)}`);
      built.push(journal);
      return journal;
    };
    try {
      const journal = await newJournal();
      await conformanceCase.run({
        journal,
        clock,
        contenders: async (count) =>
          sharedStorage
            ? [journal, ...(await Promise.all(Array.from({ length: count - 1 }, () => newJournal())))]
            : Array.from({ length: count }, () => journal),
        key: freshKey,
        claim: freshClaim,
      });
    } catch (error) {
      // The case's own failure is what its author needs to read; a dispose failing after it would hide it.
      if (!disposeInHook) await disposeAll(built.splice(0)).catch(() => undefined);
      throw error;
    }
    if (!disposeInHook) await disposeAll(built.splice(0));
  };

  describe(name, () => {
    if (disposeInHook) afterEach(() => disposeAll(undisposed.splice(0)));
    for (const [group, cases] of groupsFor(transactions)) {
      describe(group, () => {
        for (const conformanceCase of cases) it(conformanceCase.name, () => runCase(conformanceCase));
      });
    }
  });
}

function readFlag(name: string, value: unknown, fallback: boolean): boolean {
  if (value === undefined) return fallback;
  if (typeof value !== 'boolean')
    throw new InvalidOptionsError(`${OWNER}: option '${name}' must be true or false, got ${shown(value)}`);
  return value;
}

import { InvalidOptionsError, MemoryJournal } from '../../../src/index.js';
import { journalConformance, type JournalConformanceOptions } from '../../../src/journal/conformance/index.js';
import { collectingRunner, failedNames } from './support/collecting-runner.js';
import { type Journal } from '../../../src/entries/journal.js';

/*
 * How journalConformance registers its cases and builds journals: groups by the journal's
 * capabilities, options checked when it is called, createJournal sync or async, races on journals
 * of their own when storage is shared, and journals disposed after each case.
 */

const memory = ({ clock }: { clock: () => number }) => new MemoryJournal({ clock });
const groupsOf = (names: string[]) => [...new Set(names.map((name) => name.split(' > ')[1]))];

describe('journalConformance registration', () => {
  it('registers one group per concern, with the transactions group by default', () => {
    const runner = collectingRunner();

    journalConformance(memory, { describe: runner.describe, it: runner.it });

    expect(groupsOf(runner.names())).toEqual([
      'reserve',
      'takeOver',
      'fenced writes',
      'complete and replay',
      'markAbandonedUnknown and resolve',
      'holdUnique and letGoUnique',
      'transactions',
    ]);
  });

  it('registers the refusal cases instead of the transaction cases for a journal without transactions', () => {
    const runner = collectingRunner();

    journalConformance(memory, { describe: runner.describe, it: runner.it, transactions: false });

    const groups = groupsOf(runner.names());
    expect(groups).toContain('without transactions');
    expect(groups).not.toContain('transactions');
  });

  it('names its outer describe after the name option', () => {
    const runner = collectingRunner();

    journalConformance(memory, { describe: runner.describe, it: runner.it, name: 'MyJournal' });

    expect(runner.names().every((name) => name.startsWith('MyJournal > '))).toBe(true);
  });

  it.each<[string, Record<string, unknown>, RegExp]>([
    ['an unknown option, naming it', { transaction: false }, /unknown option 'transaction'/],
    ['a flag that is not a boolean', { transactions: 'no' }, /option 'transactions' must be true or false/],
    ['an it that is not a function', { it: 'it' }, /option 'it' must be a function/],
    ['an empty name', { name: '' }, /option 'name' must be a non-empty string/],
  ])('refuses %s when called', (_what, override, message) => {
    const runner = collectingRunner();
    const options = { describe: runner.describe, it: runner.it, ...override } as unknown as JournalConformanceOptions;

    expect(() => journalConformance(memory, options)).toThrow(InvalidOptionsError);
    expect(() => journalConformance(memory, options)).toThrow(message);
    expect(runner.names()).toEqual([]);
  });

  it('refuses to register without the runner’s it', () => {
    const runner = collectingRunner();

    expect(() => journalConformance(memory, { describe: runner.describe } as JournalConformanceOptions)).toThrow(
      /needs createJournal, and the describe and it of your test runner/,
    );
  });

  it('builds journals with an async createJournal', async () => {
    const runner = collectingRunner();
    journalConformance(async (options) => memory(options), { describe: runner.describe, it: runner.it });

    expect(failedNames(await runner.run())).toEqual([]);
  });

  it('fails every case, saying so, when createJournal returns no journal', async () => {
    const runner = collectingRunner();
    journalConformance((() => ({})) as never, { describe: runner.describe, it: runner.it });

    const outcomes = await runner.run();

    expect(
      outcomes.every((outcome) => outcome.error?.message === 'createJournal() should return a Journal, returned {}'),
    ).toBe(true);
  });

  it.each([
    [false, 0],
    // Three races: 8 reserves, 8 takeovers and 4 staged commits, each contender but the first on a journal built for it.
    [true, 7 + 7 + 3],
  ])('with sharedStorage: %s, builds one journal per case and %i more for the races', async (sharedStorage, more) => {
    let built = 0;
    // Journals of one case share the case's clock: here they share one MemoryJournal too, as journals on one table do.
    const stores = new Map<() => number, Journal>();
    const runner = collectingRunner();
    journalConformance(
      ({ clock }) => {
        built++;
        if (!stores.has(clock)) stores.set(clock, memory({ clock }));
        return stores.get(clock)!;
      },
      { describe: runner.describe, it: runner.it, sharedStorage },
    );

    const outcomes = await runner.run();

    expect(failedNames(outcomes)).toEqual([]);
    expect(built).toBe(outcomes.length + more);
  });

  it('runs the races across the journals it builds: journals said to share storage that do not both win a new key', async () => {
    const runner = collectingRunner();
    journalConformance(memory, { describe: runner.describe, it: runner.it, sharedStorage: true });

    const failed = failedNames(await runner.run());

    expect(failed).toEqual([
      'Journal conformance > reserve > concurrent reserves of one key: exactly one wins, every other gets the winner’s record back',
      'Journal conformance > transactions > concurrent commitStaged of one key: one commits, every other is refused or raced and lands nothing',
    ]);
  });

  it('disposes each case’s journals at the end of the case without afterEach', async () => {
    const log: string[] = [];
    const runner = collectingRunner();
    journalConformance(
      (options) => {
        log.push('build');
        return memory(options);
      },
      {
        describe: runner.describe,
        it: (name, fn) => runner.it(name, () => fn().finally(() => log.push('case over'))),
        dispose: () => {
          log.push('dispose');
        },
      },
    );

    await runner.run();

    expect(log.slice(0, 6)).toEqual(['build', 'dispose', 'case over', 'build', 'dispose', 'case over']);
  });

  it('disposes each case’s journals in afterEach when given one', async () => {
    const log: string[] = [];
    const runner = collectingRunner();
    journalConformance(
      (options) => {
        log.push('build');
        return memory(options);
      },
      {
        describe: runner.describe,
        it: (name, fn) => runner.it(name, () => fn().finally(() => log.push('case over'))),
        afterEach: runner.afterEach,
        dispose: () => {
          log.push('dispose');
        },
      },
    );

    await runner.run();

    expect(log.slice(0, 6)).toEqual(['build', 'case over', 'dispose', 'build', 'case over', 'dispose']);
  });

  it('fails a case whose journal cannot be disposed, naming dispose', async () => {
    const runner = collectingRunner();
    journalConformance(memory, {
      describe: runner.describe,
      it: runner.it,
      dispose: () => Promise.reject(new Error('connection already closed')),
    });

    const [first] = await runner.run();

    expect(first.error?.message).toBe('dispose() of a journal threw Error: connection already closed');
  });
});

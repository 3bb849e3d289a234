import { AsyncLocalStorage } from 'node:async_hooks';
import { makeIdempotent, MemoryJournal } from '../../../src/index.js';
import { type Journal } from '../../../src/entries/journal.js';

/**
 * The cross-Region conflict tally runs each journal call inside `AsyncLocalStorage.run`, whose first
 * use turns on async hooks for the whole process: only a multi-Region journal's calls pay for it.
 */
describe('the cross-Region conflict tally', () => {
  const run = () => jest.spyOn(AsyncLocalStorage.prototype, 'run');

  afterEach(() => jest.restoreAllMocks());

  it('leaves AsyncLocalStorage alone for a single-Region journal', async () => {
    const spy = run();
    const guarded = makeIdempotent(async (n: number) => n * 2, {
      journal: new MemoryJournal(),
      operation: 'double',
      key: String,
    });

    expect(await guarded(21)).toBe(42);
    expect(spy).not.toHaveBeenCalled();
  });

  it('tallies every call of a multi-Region journal through AsyncLocalStorage', async () => {
    const memory = new MemoryJournal();
    // A multi-Region journal as the engine sees it: the memory journal's calls under the 'strong' flag.
    const journal = new Proxy(memory, {
      get: (target, name) => (name === 'multiRegion' ? 'strong' : Reflect.get(target, name, target)),
    }) as Journal;
    const spy = run();
    const guarded = makeIdempotent(async (n: number) => n * 2, { journal, operation: 'double', key: String });

    expect(await guarded(21)).toBe(42);
    expect(spy.mock.calls.length).toBeGreaterThanOrEqual(2);
  });
});

import { AsyncLocalStorage } from 'node:async_hooks';
import { countReplicatedConflicts, ReplicatedItemCalls } from '../../../src/journal/index.js';

describe('countReplicatedConflicts', () => {
  it('leaves AsyncLocalStorage (and the async hooks it turns on) alone while no multi-Region journal exists', async () => {
    const run = jest.spyOn(AsyncLocalStorage.prototype, 'run');

    const answer = await countReplicatedConflicts({ count: 0 }, async () => 'done');

    expect(answer).toBe('done');
    expect(run).not.toHaveBeenCalled();
    run.mockRestore();
  });

  it('tallies through AsyncLocalStorage once a multi-Region journal has been built', async () => {
    const run = jest.spyOn(AsyncLocalStorage.prototype, 'run');
    new ReplicatedItemCalls({ send: async () => ({}) } as never, 'journal');

    await countReplicatedConflicts({ count: 0 }, async () => 'done');

    expect(run).toHaveBeenCalledTimes(1);
    run.mockRestore();
  });
});

import { httpIdempotency, InvalidOptionsError, makeIdempotent, MemoryJournal } from '../../../src/index.js';

const journal = new MemoryJournal();
const work = async (input: { id: string }) => input.id;

describe('durableExecutionTimeoutSeconds, checked when the guard is created', () => {
  it.each([0, -1, 1.5, 31_622_401, Number.NaN, '3600'])('refuses %p', (value) => {
    const create = () =>
      makeIdempotent(work, {
        journal,
        operation: 'op',
        key: (i) => i.id,
        durableExecutionTimeoutSeconds: value as never,
      });

    expect(create).toThrow(InvalidOptionsError);
    expect(create).toThrow(/durableExecutionTimeoutSeconds/);
  });

  it.each([1, 3_600, 31_622_400])('accepts %p seconds on both entry points', (value) => {
    expect(() =>
      makeIdempotent(work, { journal, operation: 'op', key: (i) => i.id, durableExecutionTimeoutSeconds: value }),
    ).not.toThrow();
    expect(() => httpIdempotency({ journal, durableExecutionTimeoutSeconds: value })).not.toThrow();
  });
});

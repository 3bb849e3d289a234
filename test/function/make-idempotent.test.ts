import {
  InProgressError,
  InvalidOptionsError,
  KeyInvalidError,
  KeyMissingError,
  MemoryJournal,
  PayloadMismatchError,
  UniqueConflictError,
  idempotencyOf,
  makeIdempotent,
} from '../../src/index.js';

type Order = { id?: string; amount: number };

describe('makeIdempotent', () => {
  const setup = () => {
    const journal = new MemoryJournal();
    const calls: Order[] = [];
    const reserve = makeIdempotent(
      async (order: Order) => {
        calls.push(order);
        return { reserved: order.amount, n: calls.length };
      },
      { journal, operation: 'reserveStock', key: (order) => order.id },
    );
    return { journal, calls, reserve };
  };

  it('runs once and returns the stored result to a repeated call', async () => {
    const { calls, reserve } = setup();
    const first = await reserve({ id: 'o-1', amount: 3 });
    const second = await reserve({ id: 'o-1', amount: 3 });
    expect(second).toEqual(first);
    expect(calls).toHaveLength(1);
  });

  it('stores an undefined result as a valid outcome', async () => {
    let runs = 0;
    const fn = makeIdempotent(
      async () => {
        runs++;
        return undefined;
      },
      { journal: new MemoryJournal(), operation: 'noop', key: () => 'k' },
    );
    await fn({});
    expect(await fn({})).toBeUndefined();
    expect(runs).toBe(1);
  });

  it.each([
    ['a missing key', { amount: 1 }, KeyMissingError],
    ['an invalid key', { id: 'has space', amount: 1 }, KeyInvalidError],
  ])('throws a typed error for %s', async (_label, input, type) => {
    const { calls, reserve } = setup();
    await expect(reserve(input)).rejects.toBeInstanceOf(type);
    expect(calls).toHaveLength(0);
  });

  it('throws PayloadMismatchError when the key is reused with another input', async () => {
    const { reserve } = setup();
    await reserve({ id: 'o-2', amount: 3 });
    await expect(reserve({ id: 'o-2', amount: 4 })).rejects.toBeInstanceOf(PayloadMismatchError);
  });

  it('throws InProgressError while the first call holds the lease', async () => {
    let finish: () => void = () => undefined;
    const slow = makeIdempotent(() => new Promise<string>((resolve) => (finish = () => resolve('ok'))), {
      journal: new MemoryJournal(),
      operation: 'slow',
      key: () => 'same',
    });
    const first = slow({});
    await new Promise((resolve) => setImmediate(resolve));
    const error = await slow({}).catch((e) => e);
    expect(error).toBeInstanceOf(InProgressError);
    expect(error.retryAfterSeconds).toBe(1);
    finish();
    expect(await first).toBe('ok');
  });

  it('throws UniqueConflictError and releases the key when a claim is held', async () => {
    const journal = new MemoryJournal();
    const refund = makeIdempotent(
      async (input: { key: string; paymentId: string }, context) => {
        idempotencyOf(context).claimUnique('refund', input.paymentId);
        return 'refunded';
      },
      { journal, operation: 'refund', key: (input) => input.key },
    );
    await refund({ key: 'a', paymentId: 'p1' });
    await expect(refund({ key: 'b', paymentId: 'p1' })).rejects.toBeInstanceOf(UniqueConflictError);
    expect(await journal.get('req#-#refund#b')).toBeUndefined();
  });

  it('validates its options when created', () => {
    const journal = new MemoryJournal();
    expect(() =>
      makeIdempotent(async () => 1, { journal, operation: 'x', key: () => 'k', leaseSeconds: 3 } as never),
    ).toThrow(/'leaseSeconds'/);
    expect(() => makeIdempotent(async () => 1, { journal, operation: '', key: () => 'k' })).toThrow(
      InvalidOptionsError,
    );
    expect(() => makeIdempotent(async () => 1, { journal, operation: 'x' } as never)).toThrow(/'key'/);
  });
});

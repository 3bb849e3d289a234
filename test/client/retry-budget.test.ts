import { RetryBudget } from '../../src/client/index.js';
import { InvalidOptionsError } from '../../src/core/index.js';
import { fakeTime } from './fake-time.js';

function acquireAll(budget: RetryBudget): number {
  let granted = 0;
  while (budget.tryAcquireRetry()) granted++;
  return granted;
}

describe('RetryBudget', () => {
  it('grants ratio × first attempts plus the per-second floor over the window', () => {
    const time = fakeTime();
    const budget = new RetryBudget({ ratio: 0.1, minPerSecond: 1, windowMs: 10_000, clock: time.clock });
    for (let i = 0; i < 100; i++) budget.recordFirstAttempt();

    const granted = acquireAll(budget);

    expect(granted).toBe(0.1 * 100 + 1 * 10);
  });

  it('lets a caller without traffic retry at the floor rate', () => {
    const time = fakeTime();
    const budget = new RetryBudget({ ratio: 0.1, minPerSecond: 2, windowMs: 1_000, clock: time.clock });

    const granted = acquireAll(budget);

    expect(granted).toBe(2);
  });

  it('forgets first attempts once they leave the window', () => {
    const time = fakeTime();
    const budget = new RetryBudget({ ratio: 0.5, minPerSecond: 0, windowMs: 10_000, clock: time.clock });
    for (let i = 0; i < 10; i++) budget.recordFirstAttempt();
    time.advance(10_000);

    const granted = acquireAll(budget);

    expect(granted).toBe(0);
  });

  it('grants again once spent retries leave the window', () => {
    const time = fakeTime();
    const budget = new RetryBudget({ ratio: 0, minPerSecond: 1, windowMs: 5_000, clock: time.clock });
    acquireAll(budget);
    time.advance(5_000);

    const granted = acquireAll(budget);

    expect(granted).toBe(5);
  });

  it('keeps counting retries spent earlier in the window', () => {
    const time = fakeTime();
    const budget = new RetryBudget({ ratio: 0, minPerSecond: 1, windowMs: 5_000, clock: time.clock });
    acquireAll(budget);
    time.advance(2_000);

    const granted = acquireAll(budget);

    expect(granted).toBe(0);
  });

  it.each([
    [{ ratio: -0.1 }, "'ratio'"],
    [{ ratio: Number.NaN }, "'ratio'"],
    [{ minPerSecond: -1 }, "'minPerSecond'"],
    [{ windowMs: 0 }, "'windowMs'"],
    [{ window: 1_000 }, "'window'"],
  ])('refuses %p, naming the option', (options, name) => {
    const create = (): RetryBudget => new RetryBudget(options as never);

    expect(create).toThrow(InvalidOptionsError);
    expect(create).toThrow(name);
  });
});

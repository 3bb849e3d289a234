import { DEFAULT_RETRY_BUDGET_OPTIONS, DEFAULT_RETRY_OPTIONS, RetryBudget } from '../../src/client/index.js';
import { resolveRetryOptions } from '../../src/client/retry-options.js';

describe('client defaults', () => {
  it('are frozen and are what an empty options object resolves to', () => {
    expect(Object.isFrozen(DEFAULT_RETRY_OPTIONS)).toBe(true);
    expect(Object.isFrozen(DEFAULT_RETRY_BUDGET_OPTIONS)).toBe(true);
    expect(resolveRetryOptions({})).toMatchObject({
      ...DEFAULT_RETRY_OPTIONS,
      maxRetryAfterMs: DEFAULT_RETRY_OPTIONS.maxDelayMs,
    });
    expect(new RetryBudget()).toMatchObject(DEFAULT_RETRY_BUDGET_OPTIONS);
  });

  it('hold the values the README documents', () => {
    expect(DEFAULT_RETRY_OPTIONS).toEqual({ maxAttempts: 5, baseDelayMs: 100, maxDelayMs: 20_000, deadlineMs: 30_000 });
    expect(DEFAULT_RETRY_BUDGET_OPTIONS).toEqual({ ratio: 0.1, minPerSecond: 10, windowMs: 10_000 });
  });
});

import fc from 'fast-check';
import { backoffCapMs, fullJitterDelayMs } from '../../src/client/retry-options.js';

describe('full-jitter backoff', () => {
  it('keeps every wait within [0, min(maxDelayMs, baseDelayMs·2^n)]', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 64 }),
        fc.integer({ min: 0, max: 10_000 }),
        fc.integer({ min: 0, max: 100_000 }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        (retryIndex, baseDelayMs, extraMs, draw) => {
          const maxDelayMs = baseDelayMs + extraMs;

          const delayMs = fullJitterDelayMs(retryIndex, { baseDelayMs, maxDelayMs }, () => draw);

          expect(delayMs).toBeGreaterThanOrEqual(0);
          expect(delayMs).toBeLessThanOrEqual(Math.min(maxDelayMs, baseDelayMs * 2 ** retryIndex));
        },
      ),
    );
  });

  it('doubles the cap per retry until maxDelayMs', () => {
    const options = { baseDelayMs: 100, maxDelayMs: 1_000 };

    const capsMs = [0, 1, 2, 3, 4, 5].map((retryIndex) => backoffCapMs(retryIndex, options));

    expect(capsMs).toEqual([100, 200, 400, 800, 1_000, 1_000]);
  });

  it('spreads waits over the interval instead of repeating one value', () => {
    const options = { baseDelayMs: 100, maxDelayMs: 20_000 };

    const delaysMs = Array.from({ length: 50 }, () => fullJitterDelayMs(3, options));

    expect(new Set(delaysMs).size).toBeGreaterThan(10);
    expect(Math.min(...delaysMs)).toBeLessThan(400);
    expect(Math.max(...delaysMs)).toBeGreaterThan(400);
  });

  it('reaches the cap itself when random returns its largest values', () => {
    const options = { baseDelayMs: 100, maxDelayMs: 20_000 };

    const delayMs = fullJitterDelayMs(2, options, () => 0.999_999);

    expect(delayMs).toBe(400);
  });

  it('never waits with a zero base, however many retries came before', () => {
    const delayMs = fullJitterDelayMs(2_000, { baseDelayMs: 0, maxDelayMs: 0 }, () => 0.5);

    expect(delayMs).toBe(0);
  });
});

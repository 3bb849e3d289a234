import { simulateRetryStorm } from '../../scripts/retry-storm/simulate.js';
import { renderRetryStormChart } from '../../scripts/retry-storm/chart.js';

const SCENARIO = { clients: 1_000, brownoutMs: 4_000 } as const;
/** The RetryBudget defaults that the jitter-budget strategy runs with. */
const BUDGET = { ratio: 0.1, minPerSecond: 10, windowMs: 10_000 } as const;

/** Retries the budget allows in one window: `ratio` × its first attempts plus the floor. */
function windowAllowance(firstAttempts: number): number {
  return BUDGET.ratio * firstAttempts + BUDGET.minPerSecond * (BUDGET.windowMs / 1000);
}

describe('retry storm against a 4 s brownout', () => {
  // "After the first wave" excludes bucket 0 ([0, 100 ms)), in which all 1,000 clients send
  // their first attempt whatever the strategy; see RetryStormResult.peakAfterFirstWave.
  it.each([1, 2, 3, 42, 1_234])(
    'keeps the peak per 100 ms at least 3× lower with jitter and a budget than with fixed delays (seed %i)',
    (seed) => {
      const fixed = simulateRetryStorm({ ...SCENARIO, strategy: 'fixed', seed });
      const jitterBudget = simulateRetryStorm({ ...SCENARIO, strategy: 'jitter-budget', seed });

      expect(fixed.peakAfterFirstWave).toBeGreaterThanOrEqual(3 * jitterBudget.peakAfterFirstWave);
    },
  );

  it('sends every fixed-delay retry wave in a single 100 ms bucket', () => {
    const fixed = simulateRetryStorm({ ...SCENARIO, strategy: 'fixed', seed: 42 });

    expect(fixed.peakAfterFirstWave).toBe(SCENARIO.clients);
  });

  // Every request of this run falls inside one budget window, so the window's allowance
  // bounds the run's total; the sliding itself is covered by the RetryBudget tests.
  it('keeps retries within the budget ratio plus its floor', () => {
    const run = simulateRetryStorm({ ...SCENARIO, strategy: 'jitter-budget', seed: 42 });

    expect(run.lastRequestMs).toBeLessThan(BUDGET.windowMs);
    expect(run.totals.retries).toBeGreaterThan(0);
    expect(run.totals.retries).toBeLessThanOrEqual(windowAllowance(run.totals.firstAttempts));
  });

  it('exceeds that bound many times over without a budget', () => {
    const run = simulateRetryStorm({ ...SCENARIO, strategy: 'jitter', seed: 42 });

    expect(run.totals.retries).toBeGreaterThan(10 * windowAllowance(run.totals.firstAttempts));
  });

  it('counts every request exactly once', () => {
    const run = simulateRetryStorm({ ...SCENARIO, strategy: 'jitter', seed: 42 });

    expect(run.requestsPerBucket.reduce((sum, count) => sum + count, 0)).toBe(run.totals.requests);
    expect(run.totals.firstAttempts).toBe(SCENARIO.clients);
    expect(run.totals.succeeded + run.totals.failed).toBe(SCENARIO.clients);
  });

  it('repeats exactly for the same seed', () => {
    const first = simulateRetryStorm({ ...SCENARIO, strategy: 'jitter', seed: 7 });
    const second = simulateRetryStorm({ ...SCENARIO, strategy: 'jitter', seed: 7 });

    expect(second).toEqual(first);
  });

  it('varies with the seed', () => {
    const first = simulateRetryStorm({ ...SCENARIO, strategy: 'jitter', seed: 7 });
    const second = simulateRetryStorm({ ...SCENARIO, strategy: 'jitter', seed: 8 });

    expect(second.requestsPerBucket).not.toEqual(first.requestsPerBucket);
  });

  it('charts one line per strategy', () => {
    const runs = (['fixed', 'jitter-budget'] as const).map((strategy) =>
      simulateRetryStorm({ ...SCENARIO, strategy, seed: 42 }),
    );

    const svg = renderRetryStormChart(runs, { brownoutMs: SCENARIO.brownoutMs });

    expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
    expect(svg.match(/<polyline /g)).toHaveLength(2);
  });
});

import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { renderRetryStormChart } from '../../retry-storm/chart.js';
import { simulateRetryStorm, type RetryStormStrategy } from '../../retry-storm/simulate.js';
import type { Narrator } from '../narrator.js';

const CLIENTS = 1_000;
const BROWNOUT_MS = 4_000;
const BASE_DELAY_MS = 500;
const LABELS: Record<RetryStormStrategy, string> = {
  fixed: 'fixed 1 s delay',
  jitter: 'full jitter',
  'jitter-budget': 'full jitter + retry budget',
};

/** How many calls got through the brownout, and what the others saw: a budget makes the rest fail fast, by design. */
function outcomeOf(succeeded: number): string {
  const failed = CLIENTS - succeeded;
  return failed === 0
    ? `all ${CLIENTS} calls succeeded`
    : `${succeeded} of ${CLIENTS} calls succeeded, ${failed} failed fast with the brownout's error instead of retrying into it`;
}

/**
 * 1,000 clients against a 4-second brownout, simulated with the client's own backoff and
 * budget code: fixed delays come back as synchronized waves, full jitter spreads them, and a
 * budget caps the retry load itself. Writes the chart to `chartPath`.
 */
export function retryStorm(narrator: Narrator, chartPath: string): void {
  narrator.scenario(
    8,
    'A retry storm against a 4-second brownout',
    `${CLIENTS} clients call at once; the API fails every request for 4 s, then recovers.`,
  );
  const runs = (['fixed', 'jitter', 'jitter-budget'] as const).map((strategy) =>
    simulateRetryStorm({ clients: CLIENTS, brownoutMs: BROWNOUT_MS, strategy, seed: 42, baseDelayMs: BASE_DELAY_MS }),
  );
  const fixedPeak = runs[0].peakAfterFirstWave;
  for (const run of runs) {
    const ratio = run.totals.retries / run.totals.firstAttempts;
    narrator.event(
      'storm',
      `${LABELS[run.strategy].padEnd(27)} peak ${String(run.peakAfterFirstWave).padStart(4)} req/100 ms after the first wave (${run.strategy === 'fixed' ? 'the baseline' : `${(fixedPeak / run.peakAfterFirstWave).toFixed(1)}× lower than fixed`}), ${run.totals.retries} retries (${ratio.toFixed(2)} per call), ${outcomeOf(run.totals.succeeded)}`,
    );
  }
  mkdirSync(dirname(chartPath), { recursive: true });
  writeFileSync(
    chartPath,
    renderRetryStormChart(runs, {
      brownoutMs: BROWNOUT_MS,
      title: `Requests per 100 ms: ${CLIENTS} clients, ${BROWNOUT_MS / 1000} s brownout`,
      subtitle: `up to 8 attempts; jitter: base ${BASE_DELAY_MS} ms, cap 20 s; budget: 10 % of first attempts + 10/s, 10 s window; peak excludes the first 100 ms`,
    }),
  );
  narrator.event('chart', `requests per 100 ms over time written to ${chartPath}`);
  const [fixed, jitter, budget] = runs;
  const budgetRetriesPerCall = budget.totals.retries / budget.totals.firstAttempts;
  const ok =
    fixed.peakAfterFirstWave >= 3 * jitter.peakAfterFirstWave &&
    jitter.totals.succeeded === CLIENTS &&
    budgetRetriesPerCall <= 0.2 + 1e-9;
  narrator.verdict(
    'retry storm',
    ok,
    `full jitter cut the peak ${(fixed.peakAfterFirstWave / jitter.peakAfterFirstWave).toFixed(1)}× and ${outcomeOf(jitter.totals.succeeded)}; the retry budget held retries to ${budgetRetriesPerCall.toFixed(2)} per call`,
  );
  if (budget.totals.succeeded < CLIENTS)
    narrator.price(
      `the budget's price: ${budget.totals.succeeded} of ${CLIENTS} calls succeeded. The brownout outlasted the budget, so ${CLIENTS - budget.totals.succeeded} calls failed fast with the brownout's error; their owners must retry them later`,
    );
}

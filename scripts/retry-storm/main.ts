import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { renderRetryStormChart } from './chart.js';
import { type RetryStormStrategy, simulateRetryStorm } from './simulate.js';

/**
 * Runs the retry-storm simulation for every strategy, prints a summary table and writes the
 * chart to docs/retry-storm.svg. Deterministic: the same seed prints the same numbers.
 *
 * Usage: npx tsx scripts/retry-storm/main.ts [seed]
 */
const CLIENTS = 1_000;
const BROWNOUT_MS = 4_000;
const seed = Number(process.argv[2] ?? 42);
const strategies: readonly RetryStormStrategy[] = ['fixed', 'jitter', 'jitter-budget'];

const BASE_DELAY_MS = 500;
const runs = strategies.map((strategy) =>
  simulateRetryStorm({ clients: CLIENTS, brownoutMs: BROWNOUT_MS, strategy, seed, baseDelayMs: BASE_DELAY_MS }),
);
const fixedPeak = runs[0]!.peakAfterFirstWave;

console.log(
  `${CLIENTS} clients, ${BROWNOUT_MS} ms brownout, seed ${seed}; peak = busiest 100 ms bucket after the first (first-attempt) bucket`,
);
console.table(
  Object.fromEntries(
    runs.map((run) => [
      run.strategy,
      {
        'peak / 100 ms': run.peakAfterFirstWave,
        'fixed peak ÷ this peak': Number((fixedPeak / run.peakAfterFirstWave).toFixed(1)),
        'first attempts': run.totals.firstAttempts,
        retries: run.totals.retries,
        'retries / first attempts': Number((run.totals.retries / run.totals.firstAttempts).toFixed(2)),
        succeeded: run.totals.succeeded,
        'last request (ms)': Math.round(run.lastRequestMs),
      },
    ]),
  ),
);

const svgPath = resolve(dirname(fileURLToPath(import.meta.url)), '../../docs/retry-storm.svg');
mkdirSync(dirname(svgPath), { recursive: true });
const chart = renderRetryStormChart(runs, {
  brownoutMs: BROWNOUT_MS,
  title: `Requests per 100 ms: ${CLIENTS} clients, ${BROWNOUT_MS / 1000} s brownout`,
  subtitle: `up to 8 attempts; jitter: base ${BASE_DELAY_MS} ms, cap 20 s; budget: 10 % of first attempts + 10/s, 10 s window; peak excludes the first 100 ms`,
});
writeFileSync(svgPath, chart);
console.log(`chart written to ${svgPath}`);

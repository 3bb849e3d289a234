/**
 * `npm run simulate:hot-key`: the retry storm on one key of issue 38, simulated for every
 * protection at container counts from 1 to 10,000. Prints the markdown tables (the sweep and
 * the largest storm each scenario carries without a throttle) and writes them, the chart and
 * the raw figures to the git-ignored `.local/hot-key/` (or `--out`); `--update-docs` writes the
 * tracked `docs/hot-key-storm.svg` and the results section of `docs/hot-key-simulation.md`
 * instead. Deterministic: the same options print the same numbers.
 */
import { Command, InvalidArgumentError, Option } from 'commander';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { replaceSection } from '../../bench/report-capacity.js';
import { measuredCallCosts } from './call-costs.js';
import { renderStormChart } from './chart.js';
import { scenarios, SHIPPED_BOUNDED_SDK_ATTEMPTS } from './protections.js';
import { renderQuietStorms, renderSettings, renderStormTable } from './report.js';
import { largestQuietStorm, sweepStorms, type StormSettings } from './storm-sweep.js';

const ROOT = resolve(fileURLToPath(new URL('.', import.meta.url)), '../..');
const DEFAULT_OUT_DIR = join(ROOT, '.local', 'hot-key');
const DOCS_PAGE = join(ROOT, 'docs', 'hot-key-simulation.md');
const DOCS_CHART = join(ROOT, 'docs', 'hot-key-storm.svg');
const RESULTS_SECTION = {
  start: '<!-- hot-key-results:start (written by npm run simulate:hot-key -- --update-docs) -->',
  end: '<!-- hot-key-results:end -->',
};

const positiveInteger = (name: string) => (value: string) => {
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 1) throw new InvalidArgumentError(`${name} must be a positive integer`);
  return parsed;
};
const positiveNumber = (name: string) => (value: string) => {
  const parsed = Number(value);
  if (!Number.isFinite(parsed) || parsed <= 0) throw new InvalidArgumentError(`${name} must be a positive number`);
  return parsed;
};
const nonNegative = (name: string) => (value: string) => {
  const parsed = Number(value);
  if (!Number.isFinite(parsed) || parsed < 0) throw new InvalidArgumentError(`${name} must be a number ≥ 0`);
  return parsed;
};
const integerList = (value: string) => value.split(',').map((part) => positiveInteger('--containers')(part.trim()));

const program = new Command('simulate:hot-key')
  .description('Simulate a retry storm on one key against one DynamoDB partition, with and without each protection')
  .option('--containers <list>', 'container counts of the sweep', integerList, [1, 10, 100, 1_000, 10_000])
  .option('--callers <n>', 'concurrent callers per container (M)', positiveInteger('--callers'), 10)
  .option(
    '--max-containers <n>',
    'upper bound of the largest-storm search',
    positiveInteger('--max-containers'),
    10_000,
  )
  .option('--seed <n>', 'seed of every random draw', positiveInteger('--seed'), 1)
  .option('--arrival-ms <ms>', 'first attempts spread over this long', positiveNumber('--arrival-ms'), 1_000)
  .option(
    '--container-burst-ms <ms>',
    "a container's callers arrive within this long (0: at once)",
    nonNegative('--container-burst-ms'),
    0,
  )
  .option('--handler-ms <ms>', 'how long the handler runs', positiveNumber('--handler-ms'), 100)
  .option('--lease-ms <ms>', 'lease of a reservation', positiveNumber('--lease-ms'), 30_000)
  .addOption(
    new Option('--reservation <shape>', 'how the guard reserves')
      .choices(['put-first', 'read-first'])
      .default('put-first'),
  )
  .option(
    '--bounded-reserve-attempts <n>',
    'SDK attempts of a throttled reservation from scenario 1 on (default: what the journal ships)',
    positiveInteger('--bounded-reserve-attempts'),
    SHIPPED_BOUNDED_SDK_ATTEMPTS.reserve,
  )
  .option(
    '--bounded-complete-attempts <n>',
    'SDK attempts of a throttled completion from scenario 1 on (default: what the journal ships)',
    positiveInteger('--bounded-complete-attempts'),
    SHIPPED_BOUNDED_SDK_ATTEMPTS.complete,
  )
  .option(
    '--throttle-retry-after-max-s <n>',
    'largest Retry-After of a 429',
    positiveInteger('--throttle-retry-after-max-s'),
    3,
  )
  .option(
    '--latency-median-ms <ms>',
    'journal round trip median (default: bench/results.json)',
    positiveNumber('--latency-median-ms'),
  )
  .option(
    '--latency-p99-ms <ms>',
    'journal round trip p99 (default: bench/results.json)',
    positiveNumber('--latency-p99-ms'),
  )
  .option('--no-budget', 'callers retry without a RetryBudget')
  .option('--scenarios <ids>', 'scenarios to run, e.g. 0,2,4 (default: all)')
  .option('--out <dir>', 'where hot-key-storm.{md,svg,json} are written', relative(process.cwd(), DEFAULT_OUT_DIR))
  .option('--update-docs', 'write docs/hot-key-storm.svg and the results section of docs/hot-key-simulation.md instead')
  .parse();

const opts = program.opts<{
  containers: number[];
  callers: number;
  maxContainers: number;
  seed: number;
  arrivalMs: number;
  containerBurstMs: number;
  handlerMs: number;
  leaseMs: number;
  reservation: 'put-first' | 'read-first';
  boundedReserveAttempts: number;
  boundedCompleteAttempts: number;
  throttleRetryAfterMaxS: number;
  latencyMedianMs?: number;
  latencyP99Ms?: number;
  budget: boolean;
  scenarios?: string;
  out: string;
  updateDocs?: boolean;
}>();

const measured = measuredCallCosts();
const settings: StormSettings = {
  callersPerContainer: opts.callers,
  seed: opts.seed,
  arrivalMs: opts.arrivalMs,
  containerBurstMs: opts.containerBurstMs,
  handlerMs: opts.handlerMs,
  leaseMs: opts.leaseMs,
  reservation: opts.reservation,
  throttleRetryAfterMaxSeconds: opts.throttleRetryAfterMaxS,
  retryBudget: opts.budget,
  costs: {
    ...measured,
    latency: {
      medianMs: opts.latencyMedianMs ?? measured.latency.medianMs,
      p99Ms: opts.latencyP99Ms ?? measured.latency.p99Ms,
    },
  },
};
const wanted = opts.scenarios?.split(',').map((id) => id.trim());
const scenarioList = scenarios({
  reserve: opts.boundedReserveAttempts,
  complete: opts.boundedCompleteAttempts,
}).filter((scenario) => wanted === undefined || wanted.includes(scenario.id));

const startedAtMs = performance.now();
const rows = await sweepStorms(scenarioList, opts.containers, settings);
const quietStorms = [];
for (const scenario of scenarioList) quietStorms.push(await largestQuietStorm(scenario, settings, opts.maxContainers));
const elapsedSeconds = ((performance.now() - startedAtMs) / 1000).toFixed(1);

const markdown = [
  renderSettings(settings),
  '',
  renderStormTable(rows),
  '',
  `Largest storm without a single throttle (containers searched up to ${opts.maxContainers.toLocaleString('en-US')}, ${opts.callers} callers each):`,
  '',
  renderQuietStorms(quietStorms),
].join('\n');
const chart = renderStormChart(
  rows,
  `${opts.callers} callers a container (together within ${opts.containerBurstMs} ms), containers over ${opts.arrivalMs / 1000} s, handler ${opts.handlerMs} ms, seed ${opts.seed}`,
);
console.log(markdown);
console.log(`\n(${rows.length + quietStorms.length} scenario runs and searches in ${elapsedSeconds} s)`);

if (opts.updateDocs) {
  writeFileSync(DOCS_CHART, chart);
  writeFileSync(DOCS_PAGE, replaceSection(readFileSync(DOCS_PAGE, 'utf8'), RESULTS_SECTION, markdown));
  console.log(`wrote ${relative(ROOT, DOCS_CHART)} and the results of ${relative(ROOT, DOCS_PAGE)}`);
} else {
  mkdirSync(opts.out, { recursive: true });
  writeFileSync(join(opts.out, 'hot-key-storm.md'), `${markdown}\n`);
  writeFileSync(join(opts.out, 'hot-key-storm.svg'), chart);
  writeFileSync(join(opts.out, 'hot-key-storm.json'), `${JSON.stringify({ settings, rows, quietStorms }, null, 2)}\n`);
  console.log(`wrote hot-key-storm.md, .svg and .json to ${opts.out}`);
}

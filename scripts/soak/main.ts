/**
 * `npm run soak`: the example payments service under load and injected faults, judged by its
 * invariants. Starts the service as `npm start` does (DynamoDB Local, the SQS emulator, the
 * API, the outbox relay and the order-events consumer), with the API's handlers in worker
 * processes that can be killed mid-request; drives it over HTTP at a fixed rate with the
 * traffic of retrying clients; injects the seeded fault schedule; lets the clients settle
 * and the queues drain; checks the invariants against the tables; writes the report and its
 * chart (to the git-ignored `.local/soak/`, or `--out`; `--update-docs` rewrites the tracked
 * `docs/soak.md` and `docs/soak.svg`). Exits 0 when every invariant held and every fault kind
 * was injected, 1 otherwise, 2 when the run could not be made. Every exit path stops what it
 * started, by PID.
 */
import { PutItemCommand } from '@aws-sdk/client-dynamodb';
import { Command, InvalidArgumentError } from 'commander';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { RetryBudget } from '../../src/client/index.js';
import { ExampleTableKey } from '../../src/handlers/service-config.js';
import { startLocalPaymentsStack } from '../local/payments-stack.js';
import { Shutdown, StoppingError } from '../local/shutdown.js';
import { serveRoutes } from '../local-api/server.js';
import { renderSoakChart } from './chart.js';
import { buildFaultSchedule, FaultPlanner } from './fault-schedule.js';
import { SoakGateway } from './gateway.js';
import { checkInvariants, type Violation } from './invariants.js';
import { SoakRelay } from './relay.js';
import { renderReport, summarize, type SoakSettings } from './report.js';
import { percentile, RunRecord } from './run-record.js';
import { SOAK_SKUS, Traffic } from './traffic.js';
import { WorkerPool } from './worker-pool.js';

/** Lambda timeout of the API handlers: their lease ends a second later. */
const API_TIMEOUT_MS = 6_000;
const CONSUMER_TIMEOUT_MS = 3_000;
/** Well above a lease, so a key whose attempt was killed can be taken over and finished. */
const SETTLE_TIMEOUT_MS = 45_000;
const DRAIN_TIMEOUT_MS = 60_000;
const INITIAL_STOCK = 1_000_000_000;
const WARM_UP_PAYMENTS = 12;
const ROOT = resolve(fileURLToPath(new URL('.', import.meta.url)), '../..');
/** Where a run's report goes unless asked otherwise: git-ignored, so a run leaves the tree clean. */
const DEFAULT_OUT_DIR = join(ROOT, '.local', 'soak');
/** The tracked report the documentation shows, rewritten only with `--update-docs`. */
const DOCS_DIR = join(ROOT, 'docs');

interface CliOptions extends SoakSettings {
  /** The folder the report and chart are written to, resolved. */
  readonly out: string;
  readonly updateDocs: boolean;
  readonly json?: string;
  readonly trace?: string;
}

function parseArguments(argv: readonly string[]): CliOptions {
  const positive = (name: string) => (value: string) => {
    const parsed = Number(value);
    if (!Number.isInteger(parsed) || parsed < 1) throw new InvalidArgumentError(`${name} must be a positive integer`);
    return parsed;
  };
  const program = new Command('soak')
    .description('Run the example service under load and injected faults, then check its invariants')
    .option('--duration <seconds>', 'length of the load', positive('duration'), 120)
    .option('--rate <per-second>', 'client actions started per second', positive('rate'), 6)
    .option('--seed <n>', 'seed of the traffic and the fault schedule', positive('seed'), 1)
    .option('--workers <n>', 'handler worker processes', positive('workers'), 3)
    .option('--out <dir>', 'where soak.md and soak.svg are written', relative(process.cwd(), DEFAULT_OUT_DIR))
    .option('--update-docs', 'write them over the tracked docs/soak.md and docs/soak.svg instead')
    .option('--json <file>', 'also write the figures as JSON')
    .option('--trace <file>', 'also write every request, answer and fault as JSON, to look into a violation')
    .parse([...argv], { from: 'user' });
  const opts = program.opts<{
    duration: number;
    rate: number;
    seed: number;
    workers: number;
    out: string;
    updateDocs?: boolean;
    json?: string;
    trace?: string;
  }>();
  if (opts.updateDocs && program.getOptionValueSource('out') === 'cli')
    program.error('error: --update-docs writes to docs/; leave out --out, or drop --update-docs');
  return {
    durationSeconds: opts.duration,
    ratePerSecond: opts.rate,
    seed: opts.seed,
    workers: opts.workers,
    out: opts.updateDocs ? DOCS_DIR : resolve(opts.out),
    updateDocs: opts.updateDocs === true,
    json: opts.json,
    trace: opts.trace,
  };
}

async function run(options: CliOptions, shutdown: Shutdown, log: (line: string) => void): Promise<number> {
  // The operator CLI and every SDK client here talk to the local services only.
  Object.assign(process.env, {
    AWS_ACCESS_KEY_ID: 'local',
    AWS_SECRET_ACCESS_KEY: 'local',
    AWS_REGION: 'us-east-1',
    POWERTOOLS_METRICS_DISABLED: 'true',
  });
  const durationMs = options.durationSeconds * 1000;
  log(`starting DynamoDB Local, the SQS emulator and ${options.workers} handler workers on 127.0.0.1`);
  const stack = await shutdown.start(
    'DynamoDB Local and the SQS emulator',
    startLocalPaymentsStack({ signal: shutdown.signal, visibilityTimeoutSeconds: 5 }),
  );
  for (const sku of SOAK_SKUS) {
    await stack.client.send(
      new PutItemCommand({
        TableName: stack.tables.stock,
        Item: { [ExampleTableKey.stock]: { S: sku }, available: { N: String(INITIAL_STOCK) } },
      }),
    );
  }

  // Run time counts from the start of the load; the warm-up before it is stamped against its own start.
  let clockStartedAt = performance.now();
  let loading = false;
  const record = new RunRecord(() => performance.now() - clockStartedAt);
  const faultsActive = () => !process.env.SOAK_NO_FAULTS && loading && record.now() < durationMs;
  const schedule = buildFaultSchedule({ seed: options.seed, durationMs });
  const planner = new FaultPlanner(schedule, options.seed);
  const pool = new WorkerPool({
    size: options.workers,
    config: { dynamodbEndpoint: stack.dynamodb.endpoint, tables: stack.tables, lambdaTimeoutMs: API_TIMEOUT_MS },
    onLogLine: (line) => record.guardLogLine(line),
    onKill: (_pid, point) => record.fault(`kill-${point}`),
  });
  await shutdown.start(
    'the handler workers',
    pool.start().then(() => pool),
  );
  const gateway = new SoakGateway({ pool, planner, record, faultsActive });
  const api = await shutdown.start(
    'the API',
    serveRoutes(gateway.routes(), 0, () => undefined),
  );
  const relay = new SoakRelay({
    stack,
    planner,
    record,
    faultsActive,
    seed: options.seed,
    consumerTimeoutMs: CONSUMER_TIMEOUT_MS,
    batchSize: 5,
  });
  relay.start();
  shutdown.onStop('the outbox relay and the consumer', () => relay.stop());
  const budget = new RetryBudget({ ratio: 0.2, minPerSecond: 2 });
  const traffic = new Traffic({
    origin: api.url,
    ratePerSecond: options.ratePerSecond,
    durationMs,
    seed: options.seed,
    record,
    budget,
  });
  shutdown.onStop('the clients', () => traffic.close());

  log('warming up: a few payments, a read and a refund, no faults');
  await traffic.warmUp(WARM_UP_PAYMENTS);
  log(
    `load: ${options.ratePerSecond} client actions/s for ${options.durationSeconds} s, seed ${options.seed}, ${schedule.oneOffs.length} one-off faults and ${schedule.windows.length} fault windows scheduled`,
  );
  clockStartedAt = performance.now();
  loading = true;
  const progress = setInterval(() => log(progressLine(record)), 10_000);
  await traffic.runLoad();
  clearInterval(progress);
  log(`load done; settling: owners re-send keys left without a final answer`);
  const unsettled = await traffic.settle(SETTLE_TIMEOUT_MS);
  log(`settled (${unsettled.length} keys without a final answer); draining the outbox and the queue`);
  const drained = await relay.drain(DRAIN_TIMEOUT_MS);
  await relay.stop();

  const invariants = await checkInvariants({
    doc: stack.doc,
    tables: stack.tables,
    endpoint: stack.dynamodb.endpoint,
    exchanges: record.exchanges,
    orderIdOfKey: new Map([...traffic.payments.values()].map((entry) => [entry.key, entry.orderId])),
    initialStock: new Map(SOAK_SKUS.map((sku) => [sku, INITIAL_STOCK])),
    effectNotCommitted: gateway.effectNotCommitted,
    completionFailures: record.completionFailures,
    unsettledKeys: unsettled,
    nowEpochMs: Date.now(),
  });
  const extraViolations: Violation[] = drained
    ? []
    : [
        {
          invariant: 'stock reserved once per order event',
          detail: `the outbox and the queue did not drain in ${DRAIN_TIMEOUT_MS / 1000} s`,
        },
      ];
  const summary = summarize({
    settings: options,
    record,
    invariants,
    extraViolations,
    retryClientRetries: traffic.retryClientRetries,
    keys: traffic.payments.size + traffic.refunds.size,
    workerRestarts: pool.restarts,
    drained,
  });
  writeOutputs(options, summary, record, schedule.windows);
  log(
    `${summary.passed ? 'PASSED' : 'FAILED'}: ${summary.violations.length} invariant violations; faults ${JSON.stringify(summary.faults)}`,
  );
  for (const violation of summary.violations.slice(0, 20))
    log(`  violation: ${violation.invariant}: ${violation.detail}`);
  if (summary.faultKindsMissing.length > 0) log(`  never injected: ${summary.faultKindsMissing.join(', ')}`);
  return summary.passed ? 0 : 1;
}

function writeOutputs(
  options: CliOptions,
  summary: ReturnType<typeof summarize>,
  record: RunRecord,
  windows: Parameters<typeof renderSoakChart>[1]['windows'],
): void {
  const outDir = options.out;
  mkdirSync(outDir, { recursive: true });
  const defaults =
    options.durationSeconds === 120 && options.ratePerSecond === 6 && options.seed === 1 && options.workers === 3;
  const settings = `--duration ${options.durationSeconds} --rate ${options.ratePerSecond} --seed ${options.seed} --workers ${options.workers}`;
  const args = [defaults ? '' : settings, options.updateDocs ? '--update-docs' : ''].filter(Boolean).join(' ');
  const command = `npm run soak${args ? ` -- ${args}` : ''}`;
  const chart = renderSoakChart(record, {
    title: `Soak: ${options.ratePerSecond} client actions/s for ${options.durationSeconds} s under injected faults — ${summary.violations.length} invariant violations`,
    subtitle: `seed ${options.seed}, ${options.workers} handler workers; p50 ${summary.latencyMs.p50} ms, p99 ${summary.latencyMs.p99} ms; ${Object.values(summary.faults).reduce((a, b) => a + b, 0)} faults injected`,
    durationMs: options.durationSeconds * 1000,
    ratePerSecond: options.ratePerSecond,
    windows,
  });
  writeFileSync(join(outDir, 'soak.svg'), chart);
  const machine = `${cpus().length} cores shared with other work, Node ${process.version}`;
  writeFileSync(
    join(outDir, 'soak.md'),
    renderReport(summary, {
      command,
      date: new Date().toISOString().slice(0, 16).replace('T', ' ') + ' UTC',
      machine,
      chartFile: 'soak.svg',
    }),
  );
  if (options.json) writeFileSync(resolve(options.json), `${JSON.stringify(summary, null, 2)}\n`);
  if (options.trace)
    writeFileSync(
      resolve(options.trace),
      `${JSON.stringify({ exchanges: record.exchanges, faults: record.faults, arrivals: record.arrivals, guardLines: record.guardLines, functionErrors: Object.fromEntries(record.functionErrors) }, null, 1)}\n`,
    );
  process.stdout.write(
    `report: ${relative(ROOT, join(outDir, 'soak.md'))}, chart: ${relative(ROOT, join(outDir, 'soak.svg'))}\n`,
  );
}

function progressLine(record: RunRecord): string {
  const nowMs = record.now();
  const recent = record.exchanges.filter((exchange) => exchange.sentAtMs + exchange.latencyMs > nowMs - 10_000);
  const ok = recent.filter((exchange) => exchange.status >= 200 && exchange.status < 300).length;
  const latencies = recent.map((exchange) => exchange.latencyMs);
  const faults = record.faults.reduce((sum, event) => sum + event.count, 0);
  return `t=${Math.round(nowMs / 1000)}s: ${record.arrivals.length} client actions; last 10 s: ${recent.length} answers (${ok} 2xx), p50 ${Math.round(percentile(latencies, 50))} ms, p99 ${Math.round(percentile(latencies, 99))} ms; ${faults} faults injected`;
}

const log = (line: string) => process.stdout.write(`${new Date().toISOString().slice(11, 19)}  ${line}\n`);
const shutdown = new Shutdown({ log }).install();
run(parseArguments(process.argv.slice(2)), shutdown, log).then(
  (code) => shutdown.run('the run ended', code),
  (error: unknown) => {
    if (error instanceof StoppingError) return;
    log(`the soak could not run: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    void shutdown.run('the run failed', 2);
  },
);

import { benchClient, createTable } from './harness/dynamodb.js';
import { machine, versions, type Machine } from './harness/machine.js';
import type { BenchPlan } from './plan.js';
import { measureBundles, type BundleResult } from './scenarios/bundle.js';
import { countCallsPerAttempt, type CallsResult } from './scenarios/calls.js';
import { measureFingerprints, type FingerprintResult } from './scenarios/fingerprint.js';
import { measureLatency, type LatencyResult } from './scenarios/latency.js';
import { raceSameKey, type SameKeyResult } from './scenarios/same-key.js';
import { measureThroughput, type ThroughputResult } from './scenarios/throughput.js';
import { measureWrites, type WritesResult } from './scenarios/writes.js';

/** Everything one run measured; `results.json` holds exactly this. */
export interface BenchResults {
  readonly generatedAt: string;
  readonly durationSeconds: number;
  readonly machine: Machine;
  readonly versions: Record<string, string>;
  readonly plan: BenchPlan;
  readonly calls: CallsResult;
  readonly latency: LatencyResult;
  readonly throughput: ThroughputResult;
  readonly sameKey: SameKeyResult;
  readonly fingerprint: FingerprintResult;
  readonly bundle: BundleResult;
  readonly writes: WritesResult;
}

/** Where a run finds the repository and reports progress. */
export interface SuiteOptions {
  /** The repository root (fixtures, node_modules, package.json). */
  readonly root: string;
  readonly log?: (line: string) => void;
}

/**
 * Runs every scenario against the DynamoDB server at `endpoint`, both libraries alternating,
 * each on a fresh pair of tables: idemkit's journal (`pk`) and Powertools' table (`id`).
 */
export async function runSuite(endpoint: string, plan: BenchPlan, options: SuiteOptions): Promise<BenchResults> {
  // The reference library writes no log line or metric per attempt: idemkit's are built but not printed.
  const restore = setEnvironment({ POWERTOOLS_LOG_LEVEL: 'SILENT', POWERTOOLS_METRICS_DISABLED: 'true' });
  try {
    return await runScenarios(endpoint, plan, options);
  } finally {
    restore();
  }
}

function setEnvironment(values: Record<string, string>): () => void {
  const previous = Object.fromEntries(Object.keys(values).map((name) => [name, process.env[name]]));
  Object.assign(process.env, values);
  return () => {
    for (const [name, value] of Object.entries(previous)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  };
}

async function runScenarios(endpoint: string, plan: BenchPlan, options: SuiteOptions): Promise<BenchResults> {
  const log = options.log ?? (() => undefined);
  const started = Date.now();
  const admin = benchClient(endpoint);
  const tables = async () => ({
    endpoint,
    idemkitTable: await createTable(admin, 'idemkit-journal', 'pk'),
    powertoolsTable: await createTable(admin, 'powertools-idempotency', 'id'),
  });
  const step = async <T>(name: string, run: () => Promise<T>): Promise<T> => {
    const stepStarted = Date.now();
    log(`${name}...`);
    const result = await run();
    log(`${name} done in ${((Date.now() - stepStarted) / 1000).toFixed(1)} s`);
    return result;
  };

  const calls = await step('DynamoDB calls per attempt', async () =>
    countCallsPerAttempt(await tables(), plan.callRepetitions),
  );
  const latency = await step('latency', async () => measureLatency(await tables(), plan.latency));
  const throughput = await step('throughput', async () => measureThroughput(await tables(), plan.throughput));
  const sameKey = await step('same-key race', async () => raceSameKey(await tables(), plan.sameKey));
  const fingerprint = await step('fingerprint cost', () => measureFingerprints(endpoint, plan.fingerprintSizes));
  const writes = await step('a handler that writes one item', () => measureWrites(endpoint, plan.writes, log));
  const bundle = await step('bundle size and cold import', () => measureBundles(options.root, plan.bundle));
  admin.destroy();
  return {
    generatedAt: new Date().toISOString(),
    durationSeconds: Math.round((Date.now() - started) / 1000),
    machine: machine(),
    versions: versions(options.root),
    plan,
    calls,
    latency,
    throughput,
    sameKey,
    fingerprint,
    bundle,
    writes,
  };
}

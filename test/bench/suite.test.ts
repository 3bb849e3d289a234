import { join } from 'node:path';
import { QUICK_PLAN } from '../../bench/plan.js';
import { checkTargets, renderReport } from '../../bench/report.js';
import { runSuite, type BenchResults } from '../../bench/suite.js';

const ROOT = join(__dirname, '..', '..');

describe('benchmark harness on a small plan', () => {
  let results: BenchResults;

  beforeAll(async () => {
    results = await runSuite(process.env.IDEMKIT_TEST_DYNAMODB_ENDPOINT!, QUICK_PLAN, { root: ROOT });
  }, 60_000);

  it('counts one DynamoDB call for a replay of either library', () => {
    expect(results.calls.replay.idemkit.medianCalls).toBe(1);
    expect(results.calls.replay.powertools.medianCalls).toBe(1);
  });

  it('counts no DynamoDB call for a local-cache replay', () => {
    expect(results.calls.localCacheReplay.idemkit.medianCalls).toBe(0);
    expect(results.calls.localCacheReplay.powertools.medianCalls).toBe(0);
  });

  it('times every invocation of every latency round', () => {
    const expected = QUICK_PLAN.latency.rounds * QUICK_PLAN.latency.perRound;
    expect(results.latency.putItem.n).toBe(expected);
    expect(results.latency.libraries.idemkit.replay.ms.n).toBe(expected);
    expect(results.latency.libraries.powertools.newKey.ms.median).toBeGreaterThan(0);
  });

  it('records requests per second for every throughput round', () => {
    expect(results.throughput.perRound.idemkit).toHaveLength(QUICK_PLAN.throughput.rounds);
    expect(results.throughput.perRound.powertools.every((rps) => rps > 0)).toBe(true);
  });

  it('counts the executions of every same-key trial', () => {
    expect(results.sameKey.executionsPerTrial.idemkit).toHaveLength(QUICK_PLAN.sameKey.trials);
    expect(results.sameKey.executionsPerTrial.powertools.every((n) => n >= 1)).toBe(true);
  });

  it('times every fingerprint path', () => {
    const [size] = results.fingerprint.sizes;
    expect(Object.values(size.medianMsPerOp).every((ms) => ms > 0)).toBe(true);
  });

  it('bundles and cold-imports both handlers', () => {
    const { bundled, external } = results.bundle.variants;
    expect(bundled.idemkit.bytes).toBeGreaterThan(external.idemkit.bytes);
    expect(bundled.powertools.coldImportMs).toBeGreaterThan(0);
  });

  it('renders a report with every target and section', () => {
    const report = renderReport(results);
    expect(checkTargets(results)).toHaveLength(7);
    for (const heading of ['## Targets', '## DynamoDB calls per attempt', '## Latency per invocation', '## Throughput', '## Same key', '## Fingerprint cost', '## Bundle size and cold import']) {
      expect(report).toContain(heading);
    }
  });
});

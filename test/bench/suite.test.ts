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

  it('counts one call for a staged-only new key and a replay, two for the default mode, three for Powertools', () => {
    const { newKey, replay } = results.writes.calls;
    expect([
      newKey.stagedOnly?.calls,
      newKey.idemkit?.calls,
      newKey.powertools?.calls,
      newKey.bareTransaction?.calls,
    ]).toEqual([1, 2, 3, 1]);
    expect(replay.stagedOnly?.commands).toEqual({ TransactWriteItems: 1 });
  });

  it('reports the write units each contender consumed for a new key', () => {
    const units = (name: 'stagedOnly' | 'idemkit' | 'powertools') =>
      Object.values(results.writes.calls.newKey[name]?.capacityUnits ?? {}).reduce((a, b) => a + b, 0);
    expect(units('powertools')).toBe(3);
    expect(units('stagedOnly')).toBe(4);
    expect(units('idemkit')).toBe(5);
  });

  it('commits exactly one payment item per staged-only same-key trial, answering every caller 201', () => {
    const race = results.writes.sameKey.stagedOnly;
    expect(race.committedWritesPerTrial).toEqual(Array(QUICK_PLAN.writes.sameKey.trials).fill(1));
    expect(race.executionsPerTrial).toEqual(
      Array(QUICK_PLAN.writes.sameKey.trials).fill(QUICK_PLAN.writes.sameKey.callers),
    );
    expect(race.answers).toEqual({ '201': QUICK_PLAN.writes.sameKey.trials * QUICK_PLAN.writes.sameKey.callers });
  });

  it('renders a report with every target and section', () => {
    const report = renderReport(results);
    expect(checkTargets(results)).toHaveLength(14);
    for (const heading of [
      '## Targets',
      '## DynamoDB calls per attempt',
      '## Latency per invocation',
      '## Throughput',
      '## Same key',
      '## A handler that writes one item',
      '## Fingerprint cost',
      '## Bundle size and cold import',
    ]) {
      expect(report).toContain(heading);
    }
  });
});

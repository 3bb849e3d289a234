import { measuredCallCosts } from '../../scripts/hot-key/call-costs.js';
import { HotPartition, PARTITION_LIMITS } from '../../scripts/hot-key/partition.js';
import { scenarios, type Scenario } from '../../scripts/hot-key/protections.js';
import { SdkRetries } from '../../scripts/hot-key/sdk-retries.js';
import { simulateHotKey, type HotKeyOptions } from '../../scripts/hot-key/simulate.js';
import { largestQuietStorm } from '../../scripts/hot-key/storm-sweep.js';

const costs = measuredCallCosts();
const scenario = (id: string): Scenario => {
  const found = scenarios().find((candidate) => candidate.id === id);
  if (found === undefined) throw new Error(`no scenario ${id}`);
  return found;
};
const storm = (id: string, options: Partial<HotKeyOptions> = {}) =>
  simulateHotKey({ containers: 1, callersPerContainer: 10, protections: scenario(id).protections, costs, ...options });

describe('hot-key storm simulation', () => {
  it('prints the same figures for the same seed', async () => {
    const first = await storm('0', { containers: 300, seed: 7 });
    const second = await storm('0', { containers: 300, seed: 7 });

    expect(second).toEqual(first);
  });

  it.each(scenarios().map((candidate) => [candidate.id]))(
    'never serves more than one partition allows in a second (scenario %s, 500 × 10 callers)',
    async (id) => {
      const result = await storm(id, { containers: 500 });

      for (const second of result.seconds) {
        expect(second.consumedWriteUnits).toBeLessThanOrEqual(PARTITION_LIMITS.writeUnitsPerSecond);
      }
    },
  );

  it("costs today's guard one reservation per answer and one completion: 2M write units for M callers of one container", async () => {
    const result = await storm('0', { arrivalMs: 0 });

    expect(result.journalCallsByKind).toEqual({ reserve: 19, get: 0, complete: 1 });
    expect(result.writeUnits).toBe(20);
    expect(result.answers).toEqual({ '2xx': 10, '409': 9, '429': 0, '503': 0 });
    expect(result.handlerRuns).toBe(1);
  });

  it("shares one reservation among a container's concurrent callers with single-flight", async () => {
    const result = await storm('2', { arrivalMs: 0 });

    // One call for the first burst, one for the retries that all come back after the same Retry-After, the completion.
    expect(result.journalCallsByKind).toEqual({ reserve: 2, get: 0, complete: 1 });
    expect(result.callersSucceeded).toBe(10);
  });

  it('answers from the lease memory without a call until the lease may have ended', async () => {
    const withMemory = await storm('3', { containers: 50, leaseMs: 30_000 });
    const withoutMemory = await storm('2', { containers: 50, leaseMs: 30_000 });

    expect(withMemory.journalCalls).toBeLessThan(withoutMemory.journalCalls);
    // Containers that saw the live lease refuse until it ends, long after the outcome was stored.
    expect(withMemory.callersGaveUpOn['409']).toBeGreaterThan(0);
    expect(withoutMemory.callersGaveUpOn['409']).toBe(0);
  });

  it('replays from the shared cache once the outcome is stored: no journal call after the completion', async () => {
    const result = await storm('4', { containers: 100, arrivalMs: 5_000 });

    expect(result.journalCallsByKind.complete).toBe(1);
    // Only the bursts before the completion reached the journal; everyone got a 2xx.
    expect(result.journalCallsByKind.reserve).toBeLessThan(10);
    expect(result.callersSucceeded).toBe(1_000);
  });

  it("answers a throttle with 503 after the SDK's four attempts today, with 429 after the bounded ones", async () => {
    const limits = { writeUnitsPerSecond: 0, readUnitsPerSecond: 0 };
    const today = await storm('0', { callersPerContainer: 1, limits });
    const bounded = await storm('1', { callersPerContainer: 1, limits });

    // The caller's 5 attempts, each sent 4 times by the SDK (today) or 2 times (bounded).
    expect(today.answers).toEqual({ '2xx': 0, '409': 0, '429': 0, '503': 5 });
    expect(today.throttledCalls).toBe(20);
    expect(bounded.answers).toEqual({ '2xx': 0, '409': 0, '429': 5, '503': 0 });
    expect(bounded.throttledCalls).toBe(10);
  });

  it('finds the largest storm that meets no throttle: about 1,000 callers for today’s guard', async () => {
    const quiet = await largestQuietStorm(scenario('0'), { callersPerContainer: 10, costs }, 1_000);

    expect(quiet.callers).toBeGreaterThan(800);
    expect(quiet.callers).toBeLessThanOrEqual(1_000);
    expect(quiet.result?.throttledCalls).toBe(0);
  });
});

describe('HotPartition', () => {
  it('serves up to the limit in each second and throttles the rest at no cost', () => {
    const partition = new HotPartition({ writeUnitsPerSecond: 2, readUnitsPerSecond: 1 });
    const write = { writeUnits: 1, readUnits: 0 };

    const served = [partition.tryServe(0, write), partition.tryServe(500, write), partition.tryServe(999, write)];
    const nextSecond = partition.tryServe(1_000, write);

    expect(served).toEqual([true, true, false]);
    expect(nextSecond).toBe(true);
    expect(partition.seconds()[0]).toEqual({
      consumedWriteUnits: 2,
      consumedReadUnits: 0,
      offeredWriteUnits: 3,
      throttledCalls: 1,
      calls: 3,
    });
  });
});

describe('SdkRetries', () => {
  it('resends a throttled call up to its attempts, waiting under 1 s · 2^retry', () => {
    const sdk = new SdkRetries(4, () => 0.999);

    const delays = [1, 2, 3, 4].map((attempt) => sdk.delayBeforeRetryMs(attempt));

    expect(delays).toEqual([999, 1_998, 3_996, undefined]);
  });

  it('stops retrying when the retry quota of 500 tokens is spent (5 a throttle retry)', () => {
    const sdk = new SdkRetries(4, () => 0);

    const granted = Array.from({ length: 101 }, () => sdk.delayBeforeRetryMs(1)).filter((delay) => delay !== undefined);

    expect(granted).toHaveLength(100);
  });
});

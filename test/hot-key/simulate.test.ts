import { measuredCallCosts } from '../../scripts/hot-key/call-costs.js';
import { HotPartition, PARTITION_LIMITS } from '../../scripts/hot-key/partition.js';
import { scenarios, SHIPPED_BOUNDED_SDK_ATTEMPTS, type Scenario } from '../../scripts/hot-key/protections.js';
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

  it('forgets the lease a container ended even when its completion was throttled: the next retries ask the journal', async () => {
    // One write unit a second: the reservation takes it, both attempts of the completion are throttled.
    const limits = { writeUnitsPerSecond: 1, readUnitsPerSecond: 0 };

    const result = await storm('3', { limits, arrivalMs: 0 });

    expect(result.journalCallsByKind.complete).toBe(2);
    expect(result.throttledCalls).toBe(2);
    // The lease-long memory would refuse every retry until the lease ends; forgotten, a retry asks the journal, which
    // answers with the live lease (and the memory takes it again).
    expect(result.journalCallsByKind.reserve).toBe(2);
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

    // The caller's 5 attempts, each reservation sent 4 times by the SDK (0.1) or once (bounded, as the journal ships).
    expect(today.answers).toEqual({ '2xx': 0, '409': 0, '429': 0, '503': 5 });
    expect(today.throttledCalls).toBe(20);
    expect(bounded.answers).toEqual({ '2xx': 0, '409': 0, '429': 5, '503': 0 });
    expect(bounded.throttledCalls).toBe(5);
  });

  it('sends a throttled completion at most twice with the bounds the journal ships, up to 4 times without', async () => {
    // One write unit a second: the reservation takes it, and the completion a moment later is throttled.
    const limits = { writeUnitsPerSecond: 1, readUnitsPerSecond: 0 };
    const seeds = [1, 2, 3, 4, 5, 6, 7, 8];
    const completions = async (id: string) =>
      Promise.all(
        seeds.map(
          async (seed) =>
            (await storm(id, { callersPerContainer: 1, limits, seed, handlerMs: 0.1 })).journalCallsByKind.complete,
        ),
      );

    const today = await completions('0');
    const bounded = await completions('1');

    expect(SHIPPED_BOUNDED_SDK_ATTEMPTS).toEqual({ reserve: 1, complete: 2 });
    expect(Math.max(...bounded)).toBe(2);
    expect(Math.max(...today)).toBeGreaterThan(2);
  });

  it('tells the callers who shared a throttled reservation the same Retry-After: one error, drawn once', async () => {
    const limits = { writeUnitsPerSecond: 0, readUnitsPerSecond: 0 };

    const result = await storm('2', { callersPerContainer: 10, limits, arrivalMs: 0 });

    // Every attempt of the 10 callers is throttled, and each wave of retries comes back together to share one call:
    // one throttled reservation per wave, not per caller.
    expect(result.answers['429']).toBeGreaterThanOrEqual(10);
    expect(result.throttledCalls).toBeLessThanOrEqual(result.answers['429'] / 10 + 1);
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
    const sdk = new SdkRetries(() => 0.999);

    const delays = [1, 2, 3, 4].map((attempt) => sdk.delayBeforeRetryMs(attempt, 4));

    expect(delays).toEqual([999, 1_998, 3_996, undefined]);
  });

  it('stops retrying when the retry quota of 500 tokens is spent (5 a throttle retry)', () => {
    const sdk = new SdkRetries(() => 0);

    const granted = Array.from({ length: 101 }, () => sdk.delayBeforeRetryMs(1, 4)).filter(
      (delay) => delay !== undefined,
    );

    expect(granted).toHaveLength(100);
  });
});

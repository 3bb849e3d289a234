import type { Scenario } from './protections.js';
import { simulateHotKey, type HotKeyOptions, type HotKeyResult } from './simulate.js';

/** A storm's settings besides its size and protections. */
export type StormSettings = Omit<HotKeyOptions, 'containers' | 'protections'>;

/** One scenario run at one storm size. */
export interface SweepRow {
  readonly scenario: Scenario;
  readonly result: HotKeyResult;
}

/** The largest storm of one scenario that the partition served without a single throttle. */
export interface QuietStorm {
  readonly scenario: Scenario;
  /** Largest container count found quiet, or 0 if even one container was throttled. */
  readonly containers: number;
  readonly callers: number;
  /** True when the search reached `maxContainers` without a throttle: the true limit is higher. */
  readonly atSearchLimit: boolean;
  /** The run at that size. */
  readonly result: HotKeyResult | undefined;
}

/**
 * Runs every scenario at every container count.
 *
 * @example
 * const rows = await sweepStorms(scenarios(), [1, 10, 100], { callersPerContainer: 10, costs })
 */
export async function sweepStorms(
  scenarioList: readonly Scenario[],
  containerCounts: readonly number[],
  settings: StormSettings,
): Promise<SweepRow[]> {
  const rows: SweepRow[] = [];
  for (const scenario of scenarioList) {
    for (const containers of containerCounts) {
      rows.push({
        scenario,
        result: await simulateHotKey({ ...settings, containers, protections: scenario.protections }),
      });
    }
  }
  return rows;
}

/**
 * The largest container count, up to `maxContainers`, whose storm met no throttle: doubling
 * from one container until a storm is throttled, then bisecting between the last quiet count
 * and that one. It assumes that a bigger storm is never quieter, which holds for one seed in
 * every run seen but is not proven: read the answer as "about".
 *
 * @example
 * const quiet = await largestQuietStorm(scenarios()[0], { callersPerContainer: 10, costs }, 10_000)
 */
export async function largestQuietStorm(
  scenario: Scenario,
  settings: StormSettings,
  maxContainers: number,
): Promise<QuietStorm> {
  const run = (containers: number) => simulateHotKey({ ...settings, containers, protections: scenario.protections });
  let quiet = 0;
  let quietResult: HotKeyResult | undefined;
  let loud: number | undefined;
  for (let containers = 1; loud === undefined; containers = Math.min(containers * 2, maxContainers)) {
    const result = await run(containers);
    if (result.throttledCalls > 0) loud = containers;
    else {
      quiet = containers;
      quietResult = result;
      if (containers === maxContainers) break;
    }
  }
  while (loud !== undefined && loud - quiet > 1) {
    const middle = Math.floor((quiet + loud) / 2);
    const result = await run(middle);
    if (result.throttledCalls > 0) loud = middle;
    else {
      quiet = middle;
      quietResult = result;
    }
  }
  return {
    scenario,
    containers: quiet,
    callers: quiet * settings.callersPerContainer,
    atSearchLimit: loud === undefined,
    result: quietResult,
  };
}

import { PARTITION_LIMITS } from './partition.js';
import type { QuietStorm, StormSettings, SweepRow } from './storm-sweep.js';

const count = (value: number) => Math.round(value).toLocaleString('en-US');
const seconds = (ms: number) => (ms / 1000).toFixed(1);
const percent = (part: number, whole: number) => `${whole === 0 ? 0 : Math.floor((1000 * part) / whole) / 10} %`;

/**
 * The sweep as one markdown table: per scenario and storm size, what the hot key carried and
 * what the callers saw.
 *
 * @example
 * console.log(renderStormTable(await sweepStorms(scenarios(), [1, 100], settings)))
 */
export function renderStormTable(rows: readonly SweepRow[]): string {
  const lines = [
    '| scenario | containers × callers | journal calls | throttled | write units/s: peak · mean (offered peak) | answers 2xx · 409 · 429 · 503 | callers with a 2xx | handler runs | drain s |',
    '|---|---|---|---|---|---|---|---|---|',
  ];
  for (const { scenario, result } of rows) {
    const { answers, writeUnitsPerSecond: units } = result;
    lines.push(
      `| ${scenario.label} | ${count(result.containers)} × ${result.callersPerContainer} | ${count(result.journalCalls)} | ` +
        `${count(result.throttledCalls)} | ${count(units.peak)} · ${count(units.mean)} (${count(units.peakOffered)}) | ` +
        `${count(answers['2xx'])} · ${count(answers['409'])} · ${count(answers['429'])} · ${count(answers['503'])} | ` +
        `${percent(result.callersSucceeded, result.callers)} | ${result.handlerRuns} | ${seconds(result.drainMs)} |`,
    );
  }
  return lines.join('\n');
}

/**
 * The largest storm of each scenario that met no throttle, as a markdown table.
 *
 * @example
 * console.log(renderQuietStorms([await largestQuietStorm(scenario, settings, 10_000)]))
 */
export function renderQuietStorms(storms: readonly QuietStorm[]): string {
  const lines = [
    `| scenario | largest storm without a throttle (containers × callers) | callers | peak write units/s | callers with a 2xx | drain s |`,
    '|---|---|---|---|---|---|',
  ];
  for (const storm of storms) {
    const more = storm.atSearchLimit ? ' or more' : '';
    const result = storm.result;
    lines.push(
      `| ${storm.scenario.label} | ${count(storm.containers)}${more} × ${result?.callersPerContainer ?? '-'} | ` +
        `**${count(storm.callers)}${more}** | ${result ? count(result.writeUnitsPerSecond.peak) : '-'} | ` +
        `${result ? percent(result.callersSucceeded, result.callers) : '-'} | ${result ? seconds(result.drainMs) : '-'} |`,
    );
  }
  return lines.join('\n');
}

/**
 * The settings a run used, as one paragraph, so a table is never read without them.
 *
 * @example
 * renderSettings({ callersPerContainer: 10, costs, seed: 42 }) // "Seed 42; 10 callers a container, ..."
 */
export function renderSettings(settings: StormSettings): string {
  const { costs } = settings;
  return (
    `Seed ${settings.seed ?? 1}; ${settings.callersPerContainer} callers a container sending their first attempts ` +
    `within ${settings.containerBurstMs ?? 0} ms of each other, the containers' bursts spread uniformly over ` +
    `${seconds(settings.arrivalMs ?? 1_000)} s; handler ${settings.handlerMs ?? 100} ms; lease ` +
    `${seconds(settings.leaseMs ?? 30_000)} s; reservation \`${settings.reservation ?? 'put-first'}\`; journal call ` +
    `round trip log-normal, median ${costs.latency.medianMs.toFixed(2)} ms, p99 ${costs.latency.p99Ms.toFixed(2)} ms; ` +
    `units: reservation ${costs.reserveWriteUnits} W, refused reservation ${costs.refusedReserveWriteUnits} W, ` +
    `completion ${costs.completeWriteUnits} W, read ${costs.getReadUnits} R; partition ` +
    `${count(settings.limits?.writeUnitsPerSecond ?? PARTITION_LIMITS.writeUnitsPerSecond)} W/s and ` +
    `${count(settings.limits?.readUnitsPerSecond ?? PARTITION_LIMITS.readUnitsPerSecond)} R/s; a throttled 429 ` +
    `carries \`Retry-After\` 1 to ${settings.throttleRetryAfterMaxSeconds ?? 3} s; callers: \`retry()\` defaults ` +
    `${settings.retryBudget === false ? 'without a budget' : 'with one `RetryBudget` per container'}.`
  );
}

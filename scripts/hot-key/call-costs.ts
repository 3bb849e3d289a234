import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** What one journal call costs on the hot key and how long it takes. */
export interface CallCosts {
  /** The reservation `PutItem` that creates the record (or takes over an expired lease). */
  readonly reserveWriteUnits: number;
  /** The reservation `PutItem` refused because a record is there: billed like a write. */
  readonly refusedReserveWriteUnits: number;
  /** The completion `UpdateItem`. */
  readonly completeWriteUnits: number;
  /** The strongly consistent `GetItem` of `reservation: 'read-first'`. */
  readonly getReadUnits: number;
  /** Round trip of one journal call, drawn from a log-normal with this median and 99th percentile. */
  readonly latency: { readonly medianMs: number; readonly p99Ms: number };
}

type MeteredCall = { readonly command: string; readonly writeUnits: number; readonly readUnits: number };
type Situation = { readonly calls: readonly MeteredCall[] };
type CapacityFile = Record<'idemkit' | 'idemkitReadFirst', { plain: Record<'newKey' | 'replay', Situation> }>;
type ResultsFile = { latency: { putItem: { median: number; p99: number } } };

const BENCH = join(dirname(fileURLToPath(import.meta.url)), '../../bench');

/**
 * The per-call figures the bench measured on DynamoDB Local, read from its committed results:
 * units from bench/capacity.json (a small record, the handler writing nothing; refused writes
 * billed by AWS's documented rules), the round trip from bench/results.json (raw `PutItem`).
 *
 * @example
 * const costs = measuredCallCosts() // { reserveWriteUnits: 1, ..., latency: { medianMs: 1.71, p99Ms: 5.69 } }
 */
export function measuredCallCosts(): CallCosts {
  const capacity = JSON.parse(readFileSync(join(BENCH, 'capacity.json'), 'utf8')) as CapacityFile;
  const results = JSON.parse(readFileSync(join(BENCH, 'results.json'), 'utf8')) as ResultsFile;
  const newKey = capacity.idemkit.plain.newKey.calls;
  return {
    reserveWriteUnits: unitsOf(newKey, 'PutItem').writeUnits,
    refusedReserveWriteUnits: unitsOf(capacity.idemkit.plain.replay.calls, 'PutItem').writeUnits,
    completeWriteUnits: unitsOf(newKey, 'UpdateItem').writeUnits,
    getReadUnits: unitsOf(capacity.idemkitReadFirst.plain.replay.calls, 'GetItem').readUnits,
    latency: { medianMs: results.latency.putItem.median, p99Ms: results.latency.putItem.p99 },
  };
}

function unitsOf(calls: readonly MeteredCall[], command: string): MeteredCall {
  const call = calls.find((candidate) => candidate.command === command);
  if (call === undefined) throw new Error(`bench/capacity.json has no ${command} where one was measured`);
  return call;
}

/** z of the 99th percentile of a standard normal distribution. */
const Z_99 = 2.326_347_874;

/**
 * A sampler of round trips: log-normal, as network and server latencies are (a long right tail),
 * fitted to a median and a 99th percentile. Box–Muller over the given uniform source.
 *
 * @example
 * const sample = latencySampler({ medianMs: 2, p99Ms: 6 }, seededRandom(1)); sample() // ≈ 2
 */
export function latencySampler(latency: CallCosts['latency'], random: () => number): () => number {
  const mu = Math.log(latency.medianMs);
  const sigma = Math.log(latency.p99Ms / latency.medianMs) / Z_99;
  return () => {
    // 1 − random() is in (0, 1]: the logarithm never sees 0.
    const normal = Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
    return Math.exp(mu + sigma * normal);
  };
}

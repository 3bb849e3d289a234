import type { BundlePlan } from './scenarios/bundle.js';
import type { FingerprintSize } from './scenarios/fingerprint.js';
import type { LatencyPlan } from './scenarios/latency.js';
import type { SameKeyPlan } from './scenarios/same-key.js';
import type { ThroughputPlan } from './scenarios/throughput.js';
import type { WritesPlan } from './scenarios/writes.js';

/** How much of everything a run measures. */
export interface BenchPlan {
  readonly callRepetitions: number;
  readonly latency: LatencyPlan;
  readonly throughput: ThroughputPlan;
  readonly sameKey: SameKeyPlan;
  readonly fingerprintSizes: readonly FingerprintSize[];
  readonly bundle: BundlePlan;
  /** The scenario where the handler writes one item. */
  readonly writes: WritesPlan;
}

const KB = 1024;

/** The full run behind RESULTS.md: a few minutes on a 2-core machine. */
export const FULL_PLAN: BenchPlan = {
  callRepetitions: 5,
  latency: { warmupRounds: 2, rounds: 24, perRound: 60 },
  throughput: { concurrency: 32, warmupRounds: 1, rounds: 16, roundMs: 2_000 },
  sameKey: { callers: 50, trials: 20, effectMs: 25 },
  fingerprintSizes: [
    { label: '1 KB', bytes: KB, rounds: 31, batch: 200 },
    { label: '100 KB', bytes: 100 * KB, rounds: 21, batch: 10 },
    { label: '1 MB', bytes: KB * KB, rounds: 11, batch: 2 },
    { label: '6 MB', bytes: 6_000_000, rounds: 7, batch: 1 },
  ],
  bundle: { coldImports: 31 },
  writes: {
    callRepetitions: 5,
    latency: { warmupRounds: 2, rounds: 20, perRound: 40 },
    throughput: { concurrency: 32, warmupRounds: 1, rounds: 12, roundMs: 2_000 },
    sameKey: { callers: 50, trials: 10, handlerMs: 25 },
  },
};

/** A seconds-long run that exercises every path (`--quick`, and the smoke test). */
export const QUICK_PLAN: BenchPlan = {
  callRepetitions: 1,
  latency: { warmupRounds: 0, rounds: 2, perRound: 3 },
  throughput: { concurrency: 4, warmupRounds: 0, rounds: 2, roundMs: 200 },
  sameKey: { callers: 5, trials: 2, effectMs: 5 },
  fingerprintSizes: [{ label: '1 KB', bytes: KB, rounds: 2, batch: 2 }],
  bundle: { coldImports: 1 },
  writes: {
    callRepetitions: 1,
    latency: { warmupRounds: 0, rounds: 2, perRound: 3 },
    throughput: { concurrency: 4, warmupRounds: 0, rounds: 2, roundMs: 200 },
    sameKey: { callers: 5, trials: 2, handlerMs: 5 },
  },
};

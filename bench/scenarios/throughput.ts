import {
  buildContender,
  closeAll,
  LIBRARIES,
  type Contender,
  type ContenderSetup,
  type LibraryName,
} from '../harness/contenders.js';
import { newKey, paymentEvent } from '../harness/events.js';
import { alternate } from '../harness/rounds.js';
import { median } from '../harness/stats.js';

/** How long and how often throughput is sampled. */
export interface ThroughputPlan {
  readonly concurrency: number;
  readonly warmupRounds: number;
  readonly rounds: number;
  readonly roundMs: number;
}

/** Requests per second of every round, their medians and the ratio. */
export interface ThroughputResult {
  readonly plan: ThroughputPlan;
  /** Requests per second of each measured round, per library. */
  readonly perRound: Record<LibraryName, number[]>;
  readonly medianRps: Record<LibraryName, number>;
  /** Answers other than 201 over all measured rounds (should stay 0: every key is distinct). */
  readonly failures: Record<LibraryName, number>;
  /** idemkit over Powertools: median of the per-round ratios. */
  readonly idemkitVsPowertools: number;
}

/** Keeps `containers.length` callers busy with new keys for `durationMs`; returns requests/s and failures. */
async function saturate(
  containers: readonly Contender[],
  durationMs: number,
): Promise<{ rps: number; failures: number }> {
  const started = Date.now();
  const deadline = started + durationMs;
  let completed = 0;
  let failures = 0;
  await Promise.all(
    containers.map(async (container) => {
      while (Date.now() < deadline) {
        const outcome = await container.invoke(paymentEvent(newKey()));
        completed++;
        if (outcome.statusCode !== 201) failures++;
      }
    }),
  );
  return { rps: completed / ((Date.now() - started) / 1000), failures };
}

/**
 * Throughput of `concurrency` concurrent callers, each a warm container of its own, each
 * request a new key (reserve, run, complete).
 */
export async function measureThroughput(
  setup: Omit<ContenderSetup, 'effect'>,
  plan: ThroughputPlan,
): Promise<ThroughputResult> {
  const containers = Object.fromEntries(
    LIBRARIES.map((name) => [name, Array.from({ length: plan.concurrency }, () => buildContender(name, setup))]),
  ) as Record<LibraryName, Contender[]>;
  try {
    return await saturateRounds(containers, plan);
  } finally {
    closeAll(Object.values(containers).flat());
  }
}

async function saturateRounds(
  containers: Record<LibraryName, Contender[]>,
  plan: ThroughputPlan,
): Promise<ThroughputResult> {
  const perRound = Object.fromEntries(LIBRARIES.map((name) => [name, [] as number[]])) as Record<LibraryName, number[]>;
  const failures = Object.fromEntries(LIBRARIES.map((name) => [name, 0])) as Record<LibraryName, number>;
  await alternate(LIBRARIES, plan.warmupRounds + plan.rounds, async (library, round) => {
    const sample = await saturate(containers[library], plan.roundMs);
    if (round < plan.warmupRounds) return;
    perRound[library].push(sample.rps);
    failures[library] += sample.failures;
  });
  const ratios = perRound.idemkit.map((rps, i) => rps / perRound.powertools[i]);
  return {
    plan,
    perRound,
    medianRps: Object.fromEntries(LIBRARIES.map((name) => [name, median(perRound[name])])) as Record<
      LibraryName,
      number
    >,
    failures,
    idemkitVsPowertools: median(ratios),
  };
}

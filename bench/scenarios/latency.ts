import { performance } from 'node:perf_hooks';
import {
  buildContender,
  closeAll,
  LIBRARIES,
  type Contender,
  type ContenderSetup,
  type LibraryName,
} from '../harness/contenders.js';
import { benchClient, rawPut } from '../harness/dynamodb.js';
import { newKey, paymentEvent } from '../harness/events.js';
import { alternate } from '../harness/rounds.js';
import { median, summarize, type Summary } from '../harness/stats.js';

/** How much latency sampling to do. */
export interface LatencyPlan {
  readonly warmupRounds: number;
  readonly rounds: number;
  /** Invocations per participant per round (new keys, then as many replays). */
  readonly perRound: number;
}

/** One library's latency for one kind of invocation. */
export interface KindLatency {
  readonly ms: Summary;
  /** Pooled median over the raw `PutItem`'s pooled median; same for p99. */
  readonly medianVsPutItem: number;
  readonly p99VsPutItem: number;
}

/** Latency of both libraries next to the raw `PutItem`, and their ratios. */
export interface LatencyResult {
  readonly plan: LatencyPlan;
  readonly putItem: Summary;
  readonly libraries: Record<LibraryName, { readonly newKey: KindLatency; readonly replay: KindLatency }>;
  /** idemkit over Powertools: median of the per-round ratios of medians, and the ratio of pooled p99s. */
  readonly idemkitVsPowertools: {
    readonly newKey: { readonly median: number; readonly p99: number };
    readonly replay: { readonly median: number; readonly p99: number };
  };
}

type Participant = LibraryName | 'putItem';
type Samples = { newKey: number[][]; replay: number[][] };

async function timed(action: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await action();
  return performance.now() - started;
}

async function sampleLibrary(contender: Contender, count: number): Promise<{ newKey: number[]; replay: number[] }> {
  const keys = Array.from({ length: count }, newKey);
  const newKeys: number[] = [];
  for (const key of keys) {
    const event = paymentEvent(key);
    newKeys.push(await timed(() => contender.invoke(event)));
  }
  const replays: number[] = [];
  for (const key of keys) {
    const event = paymentEvent(key);
    replays.push(await timed(() => contender.invoke(event)));
  }
  return { newKey: newKeys, replay: replays };
}

/**
 * Latency of one invocation (sequential, warm container, no local cache) for new keys and
 * replays, next to one raw `PutItem` on the same server measured in the same rounds.
 */
export async function measureLatency(setup: Omit<ContenderSetup, 'effect'>, plan: LatencyPlan): Promise<LatencyResult> {
  const contenders = Object.fromEntries(LIBRARIES.map((name) => [name, buildContender(name, setup)])) as Record<
    LibraryName,
    Contender
  >;
  const putClient = benchClient(setup.endpoint);
  const put = rawPut(putClient, setup.idemkitTable);
  try {
    return await sample(contenders, put, plan);
  } finally {
    closeAll(Object.values(contenders));
    putClient.destroy();
  }
}

async function sample(
  contenders: Record<LibraryName, Contender>,
  put: (key: string) => Promise<void>,
  plan: LatencyPlan,
): Promise<LatencyResult> {
  const samples = Object.fromEntries(LIBRARIES.map((name) => [name, { newKey: [], replay: [] } as Samples])) as Record<
    LibraryName,
    Samples
  >;
  const puts: number[][] = [];
  const participants: Participant[] = ['idemkit', 'putItem', 'powertools'];

  await alternate(participants, plan.warmupRounds + plan.rounds, async (participant, round) => {
    const keep = round >= plan.warmupRounds;
    if (participant === 'putItem') {
      const times: number[] = [];
      for (let i = 0; i < plan.perRound; i++) {
        const key = `raw#${newKey()}`;
        times.push(await timed(() => put(key)));
      }
      if (keep) puts.push(times);
    } else {
      const sampled = await sampleLibrary(contenders[participant], plan.perRound);
      if (keep) {
        samples[participant].newKey.push(sampled.newKey);
        samples[participant].replay.push(sampled.replay);
      }
    }
  });

  const putSummary = summarize(puts.flat());
  const kind = (rounds: number[][]): KindLatency => {
    const ms = summarize(rounds.flat());
    return { ms, medianVsPutItem: ms.median / putSummary.median, p99VsPutItem: ms.p99 / putSummary.p99 };
  };
  const head = (k: keyof Samples) => {
    const perRound = samples.idemkit[k].map((round, i) => median(round) / median(samples.powertools[k][i]));
    return {
      median: median(perRound),
      p99: summarize(samples.idemkit[k].flat()).p99 / summarize(samples.powertools[k].flat()).p99,
    };
  };
  return {
    plan,
    putItem: putSummary,
    libraries: Object.fromEntries(
      LIBRARIES.map((name) => [name, { newKey: kind(samples[name].newKey), replay: kind(samples[name].replay) }]),
    ) as LatencyResult['libraries'],
    idemkitVsPowertools: { newKey: head('newKey'), replay: head('replay') },
  };
}

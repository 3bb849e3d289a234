import {
  answerOf,
  buildContender,
  closeAll,
  LIBRARIES,
  type Contender,
  type ContenderSetup,
  type LibraryName,
} from '../harness/contenders.js';
import { newKey, paymentEvent } from '../harness/events.js';
import { alternate, sleep } from '../harness/rounds.js';

/** How the same-key race is run. */
export interface SameKeyPlan {
  readonly callers: number;
  readonly trials: number;
  /** How long the payment effect takes (a card charge round trip). */
  readonly effectMs: number;
}

/** Executions and answers of every same-key trial. */
export interface SameKeyResult {
  readonly plan: SameKeyPlan;
  /** Handler executions in each trial, per library. */
  readonly executionsPerTrial: Record<LibraryName, number[]>;
  /** How many trials ran the handler exactly once. */
  readonly exactlyOnceTrials: Record<LibraryName, number>;
  /** Answers over all trials (status codes, or the error a caller's invocation failed with). */
  readonly answers: Record<LibraryName, Record<string, number>>;
}

/**
 * `callers` warm containers (a middleware, journal and client each, as separate Lambda
 * containers would have) send the same key and body at once; the effect counts executions.
 */
export async function raceSameKey(setup: Omit<ContenderSetup, 'effect'>, plan: SameKeyPlan): Promise<SameKeyResult> {
  const executions = new Map<string, number>();
  const effect = async (event: { headers: Record<string, string | undefined> }) => {
    const key = event.headers['idempotency-key'] ?? '';
    executions.set(key, (executions.get(key) ?? 0) + 1);
    await sleep(plan.effectMs);
  };
  const containers = Object.fromEntries(
    LIBRARIES.map((name) => [
      name,
      Array.from({ length: plan.callers }, () => buildContender(name, { ...setup, effect })),
    ]),
  ) as Record<LibraryName, Contender[]>;
  try {
    return await race(containers, executions, plan);
  } finally {
    closeAll(Object.values(containers).flat());
  }
}

async function race(
  containers: Record<LibraryName, Contender[]>,
  executions: ReadonlyMap<string, number>,
  plan: SameKeyPlan,
): Promise<SameKeyResult> {
  // Warm every container (client connection, JIT) on a key of its own before the races.
  for (const name of LIBRARIES)
    await Promise.all(containers[name].map((container) => container.invoke(paymentEvent(newKey()))));

  const executionsPerTrial = Object.fromEntries(LIBRARIES.map((name) => [name, [] as number[]])) as Record<
    LibraryName,
    number[]
  >;
  const answers = Object.fromEntries(LIBRARIES.map((name) => [name, {} as Record<string, number>])) as Record<
    LibraryName,
    Record<string, number>
  >;
  await alternate(LIBRARIES, plan.trials, async (library) => {
    const key = newKey();
    const outcomes = await Promise.all(containers[library].map((container) => container.invoke(paymentEvent(key))));
    executionsPerTrial[library].push(executions.get(key) ?? 0);
    for (const outcome of outcomes) {
      const answer = answerOf(outcome);
      answers[library][answer] = (answers[library][answer] ?? 0) + 1;
    }
  });
  return {
    plan,
    executionsPerTrial,
    exactlyOnceTrials: Object.fromEntries(
      LIBRARIES.map((name) => [name, executionsPerTrial[name].filter((n) => n === 1).length]),
    ) as Record<LibraryName, number>,
    answers,
  };
}

import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import type { PaymentEffect } from '../fixtures/create-payment.js';
import {
  answerOf,
  buildContender,
  closeAll,
  LIBRARIES,
  type Contender,
  type ContenderSetup,
  type LibraryName,
} from '../harness/contenders.js';
import { newKey, paymentBody, paymentEvent } from '../harness/events.js';
import { gate } from '../harness/rounds.js';
import { median } from '../harness/stats.js';

/** The situations whose DynamoDB calls are counted, in report order. */
export const SITUATIONS = {
  newKey: 'new key',
  replay: 'replay of a completed key',
  inProgress: 'duplicate while the first attempt runs',
  mismatch: 'same key, different body',
  replayAfterMismatch: 'original request again, after the mismatch',
  errorAttempt: 'handler throws',
  retryAfterError: 'retry after the error',
  localCacheReplay: 'replay in a warm container with the local cache',
} as const;
/** One of {@link SITUATIONS}. */
export type Situation = keyof typeof SITUATIONS;

/** What one counted attempt cost and produced. */
export interface Observation {
  readonly calls: number;
  readonly commands: Record<string, number>;
  readonly answer: string;
  /** Handler executions during this attempt. */
  readonly executions: number;
  /** Payload hashes during this attempt (Powertools only). */
  readonly payloadHashes?: number;
}

/** Per situation and library: the median calls and every repetition's observation. */
export type CallsResult = Record<
  Situation,
  Record<LibraryName, { readonly medianCalls: number; readonly observations: Observation[] }>
>;

/** An effect that counts executions and, per key, can hold the handler inside it or fail once. */
class ScriptedEffect {
  executions = 0;
  readonly failOnce = new Set<string>();
  readonly holds = new Map<string, { entered: ReturnType<typeof gate>; release: ReturnType<typeof gate> }>();

  readonly run: PaymentEffect = async (event) => {
    const key = event.headers['idempotency-key'] ?? '';
    this.executions++;
    const hold = this.holds.get(key);
    if (hold) {
      hold.entered.open();
      await hold.release.opened;
    }
    if (this.failOnce.delete(key)) throw new Error('card network timeout');
  };
}

async function observe(
  container: Contender,
  effect: ScriptedEffect,
  event: APIGatewayProxyEventV2,
): Promise<Observation> {
  container.calls.reset();
  const executionsBefore = effect.executions;
  const hashesBefore = container.payloadHashes?.();
  const outcome = await container.invoke(event);
  const hashesAfter = container.payloadHashes?.();
  return {
    calls: container.calls.total(),
    commands: container.calls.byCommand(),
    answer: answerOf(outcome),
    executions: effect.executions - executionsBefore,
    ...(hashesBefore === undefined || hashesAfter === undefined ? {} : { payloadHashes: hashesAfter - hashesBefore }),
  };
}

async function oneRepetition(
  library: LibraryName,
  setup: Omit<ContenderSetup, 'effect'>,
): Promise<Record<Situation, Observation>> {
  const effect = new ScriptedEffect();
  const base = { ...setup, effect: effect.run, countHashes: true };
  const main = buildContender(library, base);
  const other = buildContender(library, base);
  const cached = buildContender(library, { ...base, localCache: true });
  try {
    return await situations(main, other, cached, effect);
  } finally {
    closeAll([main, other, cached]);
  }
}

async function situations(
  main: Contender,
  other: Contender,
  cached: Contender,
  effect: ScriptedEffect,
): Promise<Record<Situation, Observation>> {
  const completed = newKey();
  const newKeyObservation = await observe(main, effect, paymentEvent(completed));
  const replay = await observe(main, effect, paymentEvent(completed));
  const mismatch = await observe(main, effect, paymentEvent(completed, paymentBody(completed, 1)));
  const replayAfterMismatch = await observe(main, effect, paymentEvent(completed));

  const running = newKey();
  const hold = { entered: gate(), release: gate() };
  effect.holds.set(running, hold);
  const first = main.invoke(paymentEvent(running));
  await hold.entered.opened;
  const inProgress = await observe(other, effect, paymentEvent(running));
  hold.release.open();
  await first;

  const failing = newKey();
  effect.failOnce.add(failing);
  const errorAttempt = await observe(main, effect, paymentEvent(failing));
  const retryAfterError = await observe(main, effect, paymentEvent(failing));

  const warm = newKey();
  await cached.invoke(paymentEvent(warm));
  const localCacheReplay = await observe(cached, effect, paymentEvent(warm));

  return {
    newKey: newKeyObservation,
    replay,
    inProgress,
    mismatch,
    replayAfterMismatch,
    errorAttempt,
    retryAfterError,
    localCacheReplay,
  };
}

/** Counts the DynamoDB calls of every situation, `repetitions` times per library, alternating libraries. */
export async function countCallsPerAttempt(
  setup: Omit<ContenderSetup, 'effect'>,
  repetitions: number,
): Promise<CallsResult> {
  const observations = new Map<LibraryName, Array<Record<Situation, Observation>>>(LIBRARIES.map((name) => [name, []]));
  for (let i = 0; i < repetitions; i++) {
    const order = i % 2 === 0 ? LIBRARIES : [...LIBRARIES].reverse();
    for (const library of order) observations.get(library)!.push(await oneRepetition(library, setup));
  }
  const result = {} as CallsResult;
  for (const situation of Object.keys(SITUATIONS) as Situation[]) {
    const row = {} as CallsResult[Situation];
    for (const library of LIBRARIES) {
      const perRepetition = observations.get(library)!.map((all) => all[situation]);
      row[library] = { medianCalls: median(perRepetition.map((o) => o.calls)), observations: perRepetition };
    }
    result[situation] = row;
  }
  return result;
}

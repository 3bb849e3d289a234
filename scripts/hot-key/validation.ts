import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { performance } from 'node:perf_hooks';
import { meterCapacity } from '../../bench/harness/capacity-meter.js';
import {
  DynamoDBJournal,
  InProgressError,
  JournalThrottledError,
  JournalUnavailableError,
  makeIdempotent,
} from '../../src/index.js';
import { retry, RetryBudget } from '../../src/client/index.js';
import { createJournalTable } from '../../src/testing/index.js';
import { seededRandom } from '../retry-storm/seeded-random.js';
import { ANSWER_STATUSES, type AnswerStatus } from './caller-answers.js';
import { measuredCallCosts, type CallCosts } from './call-costs.js';
import { scenarios } from './protections.js';
import { simulateHotKey, type HotKeyResult } from './simulate.js';

/** One storm run twice: by the real guard on DynamoDB Local, and by the simulation. */
export interface ValidationPlan {
  /** DynamoDB Local's endpoint (`http://127.0.0.1:<port>`). */
  readonly endpoint: string;
  readonly containers: number;
  readonly callersPerContainer: number;
  /**
   * How long the handler runs: long enough that every first attempt reaches DynamoDB Local
   * before the completion even when a loaded machine queues calls there for hundreds of
   * milliseconds, which the simulation's independent round trips do not model.
   * @default 500
   */
  readonly handlerMs?: number;
  /** @default 1 */
  readonly seed?: number;
  /**
   * The simulated scenario the real guard is compared with: '3b' is the guard 0.2 ships
   * (bounded SDK retries, single-flight, a live-lease memory of at most 1 s); '0' the guard of
   * 0.1, which the real one no longer is.
   * @default '3b'
   */
  readonly scenario?: string;
  /**
   * A container's callers send their first attempts within this long of each other, each at a
   * time drawn uniformly (the simulation's `containerBurstMs`): 0 makes them concurrent, so
   * every first attempt shares the first reservation; more lets later ones meet the live lease
   * the container remembers (a 409 from memory, no call) while the handler still runs.
   * @default 0
   */
  readonly callerSpreadMs?: number;
}

/** What the real run and the simulation counted. */
export interface ValidationFigures {
  readonly journalCalls: number;
  readonly callsByCommand: Readonly<Record<string, number>>;
  readonly writeUnits: number;
  readonly readUnits: number;
  readonly handlerRuns: number;
  readonly answers: Readonly<Record<AnswerStatus, number>>;
  readonly callersSucceeded: number;
}

/** The comparison, and the real run's journal round trips, which the simulation can be given. */
export interface ValidationResult {
  readonly plan: Required<Omit<ValidationPlan, 'endpoint'>>;
  readonly real: ValidationFigures;
  readonly simulated: ValidationFigures;
  readonly realLatency: { readonly medianMs: number; readonly p99Ms: number; readonly calls: number };
  readonly simulatedResult: HotKeyResult;
}

interface Payment {
  readonly key: string;
  readonly amountCents: number;
}

const SILENT_LOGGER = { info: () => undefined, error: () => undefined, warn: () => undefined, debug: () => undefined };

/**
 * Runs `containers × callersPerContainer` callers of one new key through the real guard
 * (`makeIdempotent` over `DynamoDBJournal`, one client, journal and guard per container, as
 * separate Lambda containers have) on DynamoDB Local, each caller retrying with the real
 * `retry()` (seeded jitter, one `RetryBudget` per container); counts the journal calls and
 * their capacity (`ReturnConsumedCapacity`, refused writes by AWS's billing rules, through the
 * bench's meter), the handler's runs and every answer; then runs the simulation of the same
 * storm with the measured round trips and returns both. DynamoDB Local never throttles, so this
 * checks the per-call figures and the protocol's answers, not the partition's limits.
 *
 * @example
 * const { real, simulated } = await validateAgainstDynamoDBLocal({ endpoint, containers: 1, callersPerContainer: 10 })
 */
export async function validateAgainstDynamoDBLocal(plan: ValidationPlan): Promise<ValidationResult> {
  const settled = {
    containers: plan.containers,
    callersPerContainer: plan.callersPerContainer,
    handlerMs: plan.handlerMs ?? 500,
    seed: plan.seed ?? 1,
    scenario: plan.scenario ?? '3b',
    callerSpreadMs: plan.callerSpreadMs ?? 0,
  };
  const scenario = scenarios().find((candidate) => candidate.id === settled.scenario);
  if (scenario === undefined) throw new RangeError(`no scenario '${settled.scenario}'`);
  const measured = measuredCallCosts();
  const simulate = (latency: CallCosts['latency']) =>
    simulateHotKey({
      containers: settled.containers,
      callersPerContainer: settled.callersPerContainer,
      protections: scenario.protections,
      costs: { ...measured, latency },
      seed: settled.seed,
      handlerMs: settled.handlerMs,
      // Every container's burst starts at once (one Promise.all), its callers within the spread.
      arrivalMs: 0,
      containerBurstMs: settled.callerSpreadMs,
    });
  // The first attempts are drawn from the seed before any round trip: the real callers start when the simulated ones do.
  const { firstAttemptsMs } = await simulate(measured.latency);
  const { figures: real, latency } = await runReal(plan.endpoint, settled, firstAttemptsMs);
  const simulatedResult = await simulate({ medianMs: latency.medianMs, p99Ms: latency.p99Ms });
  return { plan: settled, real, simulated: figuresOf(simulatedResult), realLatency: latency, simulatedResult };
}

function figuresOf(result: HotKeyResult): ValidationFigures {
  const { reserve, get, complete } = result.journalCallsByKind;
  const callsByCommand: Record<string, number> = { PutItem: reserve, UpdateItem: complete };
  if (get > 0) callsByCommand.GetItem = get;
  return {
    journalCalls: result.journalCalls,
    callsByCommand,
    writeUnits: result.writeUnits,
    readUnits: result.readUnits,
    handlerRuns: result.handlerRuns,
    answers: result.answers,
    callersSucceeded: result.callersSucceeded,
  };
}

async function runReal(
  endpoint: string,
  plan: { containers: number; callersPerContainer: number; handlerMs: number; seed: number },
  firstAttemptsMs: readonly (readonly number[])[],
): Promise<{ figures: ValidationFigures; latency: ValidationResult['realLatency'] }> {
  const clientOf = () =>
    new DynamoDBClient({
      endpoint,
      region: 'us-east-1',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    });
  const inspector = clientOf();
  const tableName = await createJournalTable(inspector, { stream: false });
  const random = seededRandom(plan.seed);
  const roundTripsMs: number[] = [];
  let handlerRuns = 0;
  const pay = async (payment: Payment) => {
    handlerRuns += 1;
    await new Promise((resolve) => setTimeout(resolve, plan.handlerMs));
    return { paid: payment.amountCents };
  };
  // What separates containers in one process is the journal instance: the guard keeps its single-flight and its lease
  // memory per journal (`flightsOf`, `leaseMemoryOf`: WeakMaps keyed by it). So each container gets its own client
  // (own SDK retry quota), journal, guard and retry budget, as separate Lambda execution environments have, and shares
  // no flight or memory with another.
  const containers = Array.from({ length: plan.containers }, () => {
    const client = clientOf();
    const meter = meterCapacity(client, inspector, () => 'pk');
    timeCalls(client, roundTripsMs);
    const guarded = makeIdempotent(pay, {
      journal: new DynamoDBJournal({ tableName, client }),
      operation: 'pay',
      key: (payment: Payment) => payment.key,
      logger: SILENT_LOGGER as never,
    });
    return { client, meter, guarded, budget: new RetryBudget() };
  });
  // Each container warms its connection and DynamoDB Local its code paths on a key of its own, uncounted.
  await Promise.all(
    containers.map((container, i) => container.guarded({ key: `warm-${i}-${Date.now()}`, amountCents: 1 })),
  );
  for (const container of containers) container.meter.reset();
  roundTripsMs.splice(0);
  handlerRuns = 0;
  const answers: Record<AnswerStatus, number> = { '2xx': 0, '409': 0, '429': 0, '503': 0 };
  const count = (outcome: unknown) => {
    answers[statusOf(outcome)] += 1;
  };
  const payment: Payment = { key: `storm-${plan.seed}-${Date.now()}`, amountCents: 1_250 };
  let callersSucceeded = 0;
  try {
    await Promise.all(
      containers.flatMap((container, c) =>
        Array.from({ length: plan.callersPerContainer }, async (_, i) => {
          const startAfterMs = firstAttemptsMs[c]?.[i] ?? 0;
          if (startAfterMs > 0) await new Promise((resolve) => setTimeout(resolve, startAfterMs));
          try {
            await retry(() => container.guarded(payment), {
              budget: container.budget,
              random,
              onRetry: ({ errorOrResult }) => count(errorOrResult),
            });
            answers['2xx'] += 1;
            callersSucceeded += 1;
          } catch (error) {
            count(error);
          }
        }),
      ),
    );
  } finally {
    for (const container of containers) container.client.destroy();
    inspector.destroy();
  }
  const calls = containers.flatMap((container) => container.meter.calls());
  const callsByCommand: Record<string, number> = {};
  for (const call of calls) callsByCommand[call.command] = (callsByCommand[call.command] ?? 0) + 1;
  return {
    figures: {
      journalCalls: calls.length,
      callsByCommand,
      writeUnits: calls.reduce((sum, call) => sum + call.writeUnits, 0),
      readUnits: calls.reduce((sum, call) => sum + call.readUnits, 0),
      handlerRuns,
      answers,
      callersSucceeded,
    },
    latency: { ...percentiles(roundTripsMs), calls: roundTripsMs.length },
  };
}

/** The answer class of what a guarded call threw, as the HTTP guard would have answered it. */
function statusOf(outcome: unknown): AnswerStatus {
  if (outcome instanceof InProgressError) return '409';
  // A subclass of JournalUnavailableError: asked first. DynamoDB Local never throttles, so it stays at 0.
  if (outcome instanceof JournalThrottledError) return '429';
  if (outcome instanceof JournalUnavailableError) return '503';
  throw new Error(`an answer the storm should not produce: ${String(outcome)}`, { cause: outcome });
}

/** Records each call's round trip, from `send` to its answer (after the capacity meter's own read). */
function timeCalls(client: DynamoDBClient, roundTripsMs: number[]): void {
  client.middlewareStack.add(
    (next) => async (args) => {
      const startedAtMs = performance.now();
      try {
        return await next(args);
      } finally {
        roundTripsMs.push(performance.now() - startedAtMs);
      }
    },
    { step: 'finalizeRequest', name: 'hotKeyRoundTrip' },
  );
}

function percentiles(samplesMs: readonly number[]): { medianMs: number; p99Ms: number } {
  const sorted = [...samplesMs].sort((a, b) => a - b);
  const at = (quantile: number) => sorted[Math.min(sorted.length - 1, Math.floor(quantile * sorted.length))] ?? 0;
  return { medianMs: at(0.5), p99Ms: Math.max(at(0.99), at(0.5) * 1.01) };
}

/** One figure compared: equal, or within `tolerance` where it hangs on the order calls land in. */
export interface ValidationCheck {
  readonly figure: string;
  readonly real: number;
  readonly simulated: number;
  /** Largest difference that still holds: 0 for a figure no timing changes. */
  readonly tolerance: number;
  readonly holds: boolean;
}

/** Whether the scenario's attempts share journal calls (single-flight or the lease memory). */
function sharesCalls(scenarioId: string): boolean {
  const protections = scenarios().find((candidate) => candidate.id === scenarioId)?.protections;
  return protections !== undefined && (protections.singleFlight || protections.leaseMemory !== undefined);
}

/** Share of the callers by which a timing-dependent count may differ (see {@link checksOf}). */
const TIMING_TOLERANCE = 0.3;

/**
 * The figures compared. Per-call figures must be equal: units per call, one reservation per
 * answer where nothing shares calls (scenarios 0 and 1), the completions, the handler's runs,
 * the callers served, the throttle answers. How many callers met the lease (409) rather than the
 * stored outcome (a replay) depends on whether their reservation landed before the completion,
 * and where attempts share calls (single-flight, the lease memory) how many reservations a wave
 * of retries makes depends on whether it comes back within one flight or one remembered second:
 * those counts may differ by three tenths of the callers. DynamoDB Local on a loaded machine
 * answers in hundreds of milliseconds and queues calls, and timers fire late, which independent
 * draws of a round trip do not.
 *
 * @example
 * checksOf(result).every((check) => check.holds)
 */
export function checksOf(result: ValidationResult): ValidationCheck[] {
  const { real, simulated, plan } = result;
  const callers = plan.containers * plan.callersPerContainer;
  const timing = Math.max(1, Math.ceil(TIMING_TOLERANCE * callers));
  const answersOf = (figures: ValidationFigures) => ANSWER_STATUSES.reduce((sum, s) => sum + figures.answers[s], 0);
  const reservationsOf = (figures: ValidationFigures) =>
    (figures.callsByCommand.PutItem ?? 0) + (figures.callsByCommand.GetItem ?? 0);
  const check = (figure: string, realValue: number, simulatedValue: number, tolerance = 0): ValidationCheck => ({
    figure,
    real: realValue,
    simulated: simulatedValue,
    tolerance,
    holds: Math.abs(realValue - simulatedValue) <= tolerance + 1e-9,
  });
  return [
    check('journal calls', real.journalCalls, simulated.journalCalls, timing),
    check(
      'write units per journal call',
      real.writeUnits / real.journalCalls,
      simulated.writeUnits / simulated.journalCalls,
    ),
    check('read units', real.readUnits, simulated.readUnits),
    sharesCalls(plan.scenario)
      ? check('reservation calls', reservationsOf(real), reservationsOf(simulated), timing)
      : check(
          'reservation calls per answer',
          reservationsOf(real) / answersOf(real),
          reservationsOf(simulated) / answersOf(simulated),
        ),
    check('completions (UpdateItem)', real.callsByCommand.UpdateItem ?? 0, simulated.callsByCommand.UpdateItem ?? 0),
    check('handler runs', real.handlerRuns, simulated.handlerRuns),
    ...ANSWER_STATUSES.map((status) =>
      check(`answers ${status}`, real.answers[status], simulated.answers[status], status === '409' ? timing : 0),
    ),
    check('callers with a 2xx', real.callersSucceeded, simulated.callersSucceeded),
  ];
}

/**
 * The comparison as a markdown table: one row per figure, the real count, the simulated one.
 *
 * @example
 * console.log(renderValidation(await validateAgainstDynamoDBLocal(plan)))
 */
export function renderValidation(result: ValidationResult): string {
  const { plan, realLatency } = result;
  const shown = (value: number) => (Number.isInteger(value) ? String(value) : value.toFixed(3));
  return [
    `${plan.containers} container(s) × ${plan.callersPerContainer} callers (first attempts within ` +
      `${plan.callerSpreadMs} ms of each other), one new key, handler ` +
      `${plan.handlerMs} ms, seed ${plan.seed}, compared with scenario ${plan.scenario}; journal round trips on ` +
      `DynamoDB Local: median ${realLatency.medianMs.toFixed(2)} ms, p99 ${realLatency.p99Ms.toFixed(2)} ms ` +
      `(${realLatency.calls} calls; the simulation drew from these).`,
    '',
    '| figure | DynamoDB Local | simulation | holds |',
    '|---|---|---|---|',
    ...checksOf(result).map(
      (check) =>
        `| ${check.figure} | ${shown(check.real)} | ${shown(check.simulated)} | ` +
        `${check.holds ? 'yes' : '**no**'}${check.tolerance > 0 ? ` (± ${check.tolerance})` : ''} |`,
    ),
  ].join('\n');
}

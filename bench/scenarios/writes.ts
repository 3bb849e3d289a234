import { DynamoDBDocumentClient, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { performance } from 'node:perf_hooks';
import { answerOf, closeAll } from '../harness/contenders.js';
import { benchClient, createTable } from '../harness/dynamodb.js';
import { newKey, paymentEvent } from '../harness/events.js';
import { alternate, sleep } from '../harness/rounds.js';
import { median, summarize, type Summary } from '../harness/stats.js';
import {
  buildWriter,
  GUARDED_WRITERS,
  WRITERS,
  type Writer,
  type WriterName,
  type WriterSetup,
} from '../harness/writing-contenders.js';

/** How much of the writing scenario a run measures. */
export interface WritesPlan {
  readonly callRepetitions: number;
  readonly latency: { readonly warmupRounds: number; readonly rounds: number; readonly perRound: number };
  readonly throughput: {
    readonly concurrency: number;
    readonly warmupRounds: number;
    readonly rounds: number;
    readonly roundMs: number;
  };
  readonly sameKey: { readonly callers: number; readonly trials: number; readonly handlerMs: number };
}

/** The DynamoDB calls and write capacity of one kind of invocation. */
export interface CallsAndCapacity {
  readonly calls: number;
  readonly commands: Record<string, number>;
  /** Capacity units DynamoDB Local reported, by command (a cancelled transaction reports none). */
  readonly capacityUnits: Record<string, number>;
  readonly answer: string;
}

/** Latency of one contender: the whole invocation, and the part spent inside DynamoDB calls. */
export interface WriterLatency {
  readonly newKey: Summary;
  /** Median per invocation of the time inside DynamoDB calls (send to answer, marshalling included). */
  readonly newKeyInCallsMs: number;
  /** Median per invocation of the time inside each command. */
  readonly newKeyInCallsByCommandMs: Record<string, number>;
  readonly replay?: Summary;
}

/** A guarded contender's same-key trials. */
export interface WriterRace {
  readonly executionsPerTrial: number[];
  /** Payment items committed per trial (one key each). */
  readonly committedWritesPerTrial: number[];
  readonly answers: Record<string, number>;
}

/** Everything the writing scenario measured. */
export interface WritesResult {
  readonly plan: WritesPlan;
  readonly calls: Record<'newKey' | 'replay', Partial<Record<WriterName, CallsAndCapacity>>>;
  readonly latency: Record<WriterName, WriterLatency>;
  /** Medians of per-round ratios of new-key medians: `a` over `b`. */
  readonly latencyRatios: Record<string, number>;
  readonly throughput: {
    readonly perRound: Record<WriterName, number[]>;
    readonly medianRps: Record<WriterName, number>;
    readonly failures: Record<WriterName, number>;
    readonly ratios: Record<string, number>;
  };
  readonly sameKey: Record<(typeof GUARDED_WRITERS)[number], WriterRace>;
}

/** The ratios reported, as `a/b`. */
const RATIOS: ReadonlyArray<readonly [WriterName, WriterName]> = [
  ['stagedOnly', 'bareTransaction'],
  ['stagedOnly', 'powertools'],
  ['idemkit', 'bareTransaction'],
  ['idemkit', 'powertools'],
  ['powertools', 'bareTransaction'],
];
const ratioName = ([a, b]: readonly [WriterName, WriterName]) => `${a}/${b}`;

type Tables = Omit<WriterSetup, 'measureCapacity' | 'beforeWrite'>;

/**
 * The payment handler writes one item: Powertools with the handler's own `PutItem`, idemkit
 * with the write staged (default and `staged-only`), and the bare `TransactWriteItems` of the
 * same two items as the floor — side by side, alternating round by round.
 */
export async function measureWrites(
  endpoint: string,
  plan: WritesPlan,
  log: (line: string) => void = () => undefined,
): Promise<WritesResult> {
  const admin = benchClient(endpoint);
  const tables = async (): Promise<Tables> => ({
    endpoint,
    idemkitTable: await createTable(admin, 'idemkit-journal', 'pk'),
    powertoolsTable: await createTable(admin, 'powertools-idempotency', 'id'),
    paymentsTable: await createTable(admin, 'payments', 'pk'),
  });
  try {
    log('writes: calls and capacity');
    const calls = await countCallsAndCapacity(await tables(), plan.callRepetitions);
    log('writes: latency');
    const { latency, latencyRatios } = await measureLatency(await tables(), plan.latency);
    log('writes: throughput');
    const throughput = await measureThroughput(await tables(), plan.throughput);
    log('writes: same-key race');
    const sameKey = await raceSameKey(await tables(), plan.sameKey);
    return { plan, calls, latency, latencyRatios, throughput, sameKey };
  } finally {
    admin.destroy();
  }
}

async function observe(writer: Writer, key: string): Promise<CallsAndCapacity> {
  writer.calls.reset();
  writer.capacity?.reset();
  const outcome = await writer.invoke(paymentEvent(key));
  return {
    calls: writer.calls.total(),
    commands: writer.calls.byCommand(),
    capacityUnits: writer.capacity?.byCommand() ?? {},
    answer: answerOf(outcome),
  };
}

async function countCallsAndCapacity(tables: Tables, repetitions: number): Promise<WritesResult['calls']> {
  const seen = { newKey: new Map<WriterName, CallsAndCapacity[]>(), replay: new Map<WriterName, CallsAndCapacity[]>() };
  await alternate(WRITERS, repetitions, async (name) => {
    const writer = buildWriter(name, { ...tables, measureCapacity: true });
    try {
      const key = newKey();
      push(seen.newKey, name, await observe(writer, key));
      // The floor has no replay: it guards nothing.
      if (name !== 'bareTransaction') push(seen.replay, name, await observe(writer, key));
    } finally {
      writer.close();
    }
  });
  const typical = (all: Map<WriterName, CallsAndCapacity[]>) =>
    Object.fromEntries(
      [...all].map(([name, observations]) => {
        const calls = median(observations.map((o) => o.calls));
        return [name, observations.find((o) => o.calls === calls) ?? observations[0]];
      }),
    );
  return { newKey: typical(seen.newKey), replay: typical(seen.replay) };
}

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  map.set(key, [...(map.get(key) ?? []), value]);
}

async function measureLatency(
  tables: Tables,
  plan: WritesPlan['latency'],
): Promise<Pick<WritesResult, 'latency' | 'latencyRatios'>> {
  const writers = Object.fromEntries(WRITERS.map((name) => [name, buildWriter(name, tables)])) as Record<
    WriterName,
    Writer
  >;
  const newKeys = Object.fromEntries(WRITERS.map((name) => [name, [] as number[][]])) as Record<WriterName, number[][]>;
  const replays = Object.fromEntries(WRITERS.map((name) => [name, [] as number[]])) as Record<WriterName, number[]>;
  const inCalls = Object.fromEntries(WRITERS.map((name) => [name, [] as number[]])) as Record<WriterName, number[]>;
  const byCommand = Object.fromEntries(WRITERS.map((name) => [name, new Map<string, number[]>()])) as Record<
    WriterName,
    Map<string, number[]>
  >;
  try {
    await alternate(WRITERS, plan.warmupRounds + plan.rounds, async (name, round) => {
      const keep = round >= plan.warmupRounds;
      const writer = writers[name];
      const keys = Array.from({ length: plan.perRound }, newKey);
      const times: number[] = [];
      for (const key of keys) {
        const event = paymentEvent(key);
        writer.callMs.reset();
        const started = performance.now();
        await writer.invoke(event);
        times.push(performance.now() - started);
        if (keep) {
          inCalls[name].push(writer.callMs.total());
          for (const [command, ms] of Object.entries(writer.callMs.byCommand())) push(byCommand[name], command, ms);
        }
      }
      if (keep) newKeys[name].push(times);
      if (name === 'bareTransaction') return;
      for (const key of keys) {
        const event = paymentEvent(key);
        const started = performance.now();
        await writer.invoke(event);
        if (keep) replays[name].push(performance.now() - started);
      }
    });
  } finally {
    closeAll(Object.values(writers));
  }
  const latency = Object.fromEntries(
    WRITERS.map((name) => [
      name,
      {
        newKey: summarize(newKeys[name].flat()),
        newKeyInCallsMs: median(inCalls[name]),
        newKeyInCallsByCommandMs: Object.fromEntries(
          [...byCommand[name]].map(([command, ms]) => [command, median(ms)]),
        ),
        ...(replays[name].length > 0 ? { replay: summarize(replays[name]) } : {}),
      },
    ]),
  ) as Record<WriterName, WriterLatency>;
  const perRoundRatio = ([a, b]: readonly [WriterName, WriterName]) =>
    median(newKeys[a].map((round, i) => median(round) / median(newKeys[b][i])));
  return { latency, latencyRatios: Object.fromEntries(RATIOS.map((pair) => [ratioName(pair), perRoundRatio(pair)])) };
}

async function measureThroughput(tables: Tables, plan: WritesPlan['throughput']): Promise<WritesResult['throughput']> {
  const containers = Object.fromEntries(
    WRITERS.map((name) => [name, Array.from({ length: plan.concurrency }, () => buildWriter(name, tables))]),
  ) as Record<WriterName, Writer[]>;
  const perRound = Object.fromEntries(WRITERS.map((name) => [name, [] as number[]])) as Record<WriterName, number[]>;
  const failures = Object.fromEntries(WRITERS.map((name) => [name, 0])) as Record<WriterName, number>;
  try {
    await alternate(WRITERS, plan.warmupRounds + plan.rounds, async (name, round) => {
      const started = Date.now();
      const deadline = started + plan.roundMs;
      let completed = 0;
      let failed = 0;
      await Promise.all(
        containers[name].map(async (container) => {
          while (Date.now() < deadline) {
            const outcome = await container.invoke(paymentEvent(newKey()));
            completed++;
            if (outcome.statusCode !== 201) failed++;
          }
        }),
      );
      if (round < plan.warmupRounds) return;
      perRound[name].push(completed / ((Date.now() - started) / 1000));
      failures[name] += failed;
    });
  } finally {
    closeAll(Object.values(containers).flat());
  }
  const ratio = ([a, b]: readonly [WriterName, WriterName]) =>
    median(perRound[a].map((rps, i) => rps / perRound[b][i]));
  return {
    perRound,
    medianRps: Object.fromEntries(WRITERS.map((name) => [name, median(perRound[name])])) as Record<WriterName, number>,
    failures,
    ratios: Object.fromEntries(RATIOS.map((pair) => [ratioName(pair), ratio(pair)])),
  };
}

async function raceSameKey(tables: Tables, plan: WritesPlan['sameKey']): Promise<WritesResult['sameKey']> {
  const executions = new Map<string, number>();
  const beforeWrite = async (key: string) => {
    executions.set(key, (executions.get(key) ?? 0) + 1);
    await sleep(plan.handlerMs);
  };
  const containers = Object.fromEntries(
    GUARDED_WRITERS.map((name) => [
      name,
      Array.from({ length: plan.callers }, () => buildWriter(name, { ...tables, beforeWrite })),
    ]),
  ) as Record<(typeof GUARDED_WRITERS)[number], Writer[]>;
  const races = Object.fromEntries(
    GUARDED_WRITERS.map((name) => [
      name,
      { executionsPerTrial: [], committedWritesPerTrial: [], answers: {} } as WriterRace,
    ]),
  ) as WritesResult['sameKey'];
  const reader = DynamoDBDocumentClient.from(benchClient(tables.endpoint));
  try {
    // Warm every container (connection, JIT) on a key of its own before the races.
    for (const name of GUARDED_WRITERS)
      await Promise.all(containers[name].map((container) => container.invoke(paymentEvent(newKey()))));
    await alternate(GUARDED_WRITERS, plan.trials, async (name) => {
      const key = newKey();
      const outcomes = await Promise.all(containers[name].map((container) => container.invoke(paymentEvent(key))));
      const race = races[name];
      race.executionsPerTrial.push(executions.get(key) ?? 0);
      race.committedWritesPerTrial.push(await committedWrites(reader, tables.paymentsTable, key));
      for (const outcome of outcomes) race.answers[answerOf(outcome)] = (race.answers[answerOf(outcome)] ?? 0) + 1;
    });
  } finally {
    closeAll(Object.values(containers).flat());
    reader.destroy();
  }
  return races;
}

async function committedWrites(reader: DynamoDBDocumentClient, paymentsTable: string, key: string): Promise<number> {
  let count = 0;
  let start: Record<string, unknown> | undefined;
  do {
    const page = await reader.send(
      new ScanCommand({
        TableName: paymentsTable,
        ConsistentRead: true,
        FilterExpression: 'idempotencyKey = :key',
        ExpressionAttributeValues: { ':key': key },
        ExclusiveStartKey: start,
      }),
    );
    count += page.Count ?? 0;
    start = page.LastEvaluatedKey;
  } while (start);
  return count;
}

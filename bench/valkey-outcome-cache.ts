/**
 * `npm run bench:valkey-cache`: what a shared `ValkeyOutcomeCache` saves per replay. Records are in DynamoDB (DynamoDB
 * Local on 127.0.0.1); container A completes a batch of new keys, then container B — a guard of its own, on its own
 * clients, with nothing of A's in memory — replays them, either from the journal (no cache; `'put-first'`, the
 * default, and `'read-first'` reservations) or from a `ValkeyOutcomeCache` on one redis-server on 127.0.0.1 that A
 * filled. Journal calls are counted on B's DynamoDB client while timed; capacity units (as `bench:capacity` bills
 * them) in a pass of their own afterwards, since metering a refused write reads the item first.
 * The order of contenders alternates round by round, so machine drift lands on all alike. Writes
 * bench/valkey-outcome-cache.json and its section of bench/RESULTS.md.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import middy from '@middy/core';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { DynamoDBJournal, httpIdempotency } from '../src/index.js';
import { ValkeyOutcomeCache } from '../src/entries/valkey.js';
import { startDynamoDBLocal } from '../src/testing/index.js';
import { startValkeyServer } from '../test/support/valkey.js';
import { meterCapacity } from './harness/capacity-meter.js';
import { benchClient, countCalls, createTable } from './harness/dynamodb.js';
import { createPayment } from './fixtures/create-payment.js';
import { lambdaContext, newKey, paymentEvent } from './harness/events.js';
import { machine, versions } from './harness/machine.js';
import { median, percentile, round } from './harness/stats.js';
import { replaceSection, VALKEY_CACHE_SECTION } from './report-capacity.js';

process.env.POWERTOOLS_LOG_LEVEL = 'SILENT';
process.env.POWERTOOLS_METRICS_DISABLED = 'true';

const ROUNDS = Number(process.env.BENCH_VALKEY_CACHE_ROUNDS ?? 20);
const WARM_UP_ROUNDS = 2;
const KEYS_PER_ROUND = 30;
const log = (line: string) => process.stderr.write(`[valkey-outcome-cache] ${line}\n`);

type Invoke = (event: APIGatewayProxyEventV2) => Promise<unknown>;
interface Contender {
  readonly name: string;
  /** Container A: completes the new keys. */
  readonly complete: Invoke;
  /** Container B: replays them, its calls counted. */
  readonly replay: Invoke;
  readonly calls: ReturnType<typeof countCalls>;
  /** Container C, like B, its calls billed: the units pass. */
  readonly metered: Invoke;
  readonly meter: ReturnType<typeof meterCapacity>;
}

const dynamo = await startDynamoDBLocal();
const valkey = await startValkeyServer();
log(`DynamoDB Local pid ${dynamo.pid}, redis-server pid ${valkey.pid}`);
let exitCode = 0;
try {
  const setup = benchClient(dynamo.endpoint);
  const tableName = await createTable(setup, 'vcache', 'pk');
  const container = (reservation: 'put-first' | 'read-first', cached: boolean) => {
    const client = benchClient(dynamo.endpoint);
    const outcomeCache = cached ? new ValkeyOutcomeCache({ client: valkey.client() }) : undefined;
    const handler = middy(createPayment()).use(
      httpIdempotency({ journal: new DynamoDBJournal({ tableName, client, reservation }), outcomeCache }),
    );
    return { invoke: ((event) => handler(event, lambdaContext())) as Invoke, client };
  };
  const pair = (name: string, reservation: 'put-first' | 'read-first', cached: boolean): Contender => {
    const [a, b, c] = [container(reservation, cached), container(reservation, cached), container(reservation, cached)];
    const calls = countCalls(b.client);
    const meter = meterCapacity(c.client, setup, () => 'pk');
    return { name, complete: a.invoke, replay: b.invoke, calls, metered: c.invoke, meter };
  };
  const contenders: readonly Contender[] = [
    pair('DynamoDBJournal, put-first (default)', 'put-first', false),
    pair('DynamoDBJournal, read-first', 'read-first', false),
    pair('ValkeyOutcomeCache over DynamoDBJournal', 'put-first', true),
  ];

  const samples = new Map(
    contenders.map(({ name }) => [
      name,
      { newKey: [] as number[], replay: [] as number[], calls: 0, metered: 0, wcu: 0, rcu: 0 },
    ]),
  );
  const timed = async (invoke: Invoke, event: APIGatewayProxyEventV2) => {
    const started = process.hrtime.bigint();
    await invoke(event);
    return Number(process.hrtime.bigint() - started) / 1e6;
  };
  for (let roundIndex = 0; roundIndex < WARM_UP_ROUNDS + ROUNDS; roundIndex++) {
    const measured = roundIndex >= WARM_UP_ROUNDS;
    const order = roundIndex % 2 === 0 ? contenders : [...contenders].reverse();
    for (const contender of order) {
      const sample = samples.get(contender.name)!;
      const events = Array.from({ length: KEYS_PER_ROUND }, () => paymentEvent(newKey()));
      for (const event of events) {
        const elapsedMs = await timed(contender.complete, event);
        if (measured) sample.newKey.push(elapsedMs);
      }
      // A's cache writes are not awaited by its invocations: let the last ones land.
      await new Promise((resolve) => setTimeout(resolve, 50));
      contender.calls.reset();
      for (const event of events) {
        const elapsedMs = await timed(contender.replay, event);
        if (measured) sample.replay.push(elapsedMs);
      }
      if (measured) sample.calls += contender.calls.total();
    }
  }
  // The units pass: a fresh batch per contender, completed by A, replayed once by C.
  for (const contender of contenders) {
    const sample = samples.get(contender.name)!;
    const events = Array.from({ length: KEYS_PER_ROUND }, () => paymentEvent(newKey()));
    for (const event of events) await contender.complete(event);
    await new Promise((resolve) => setTimeout(resolve, 50));
    contender.meter.reset();
    for (const event of events) await contender.metered(event);
    const calls = contender.meter.calls();
    sample.metered += events.length;
    sample.wcu += calls.reduce((sum, call) => sum + call.writeUnits, 0);
    sample.rcu += calls.reduce((sum, call) => sum + call.readUnits, 0);
  }

  const journalReplay = median(samples.get(contenders[0].name)!.replay);
  const rows: Row[] = contenders.map(({ name }) => {
    const { newKey: created, replay, calls, metered, wcu, rcu } = samples.get(name)!;
    return {
      name,
      replayMedianMs: round(median(replay), 3),
      replayP99Ms: round(percentile(replay, 99), 3),
      replayVsJournal: round(median(replay) / journalReplay, 3),
      journalCallsPerReplay: round(calls / replay.length, 3),
      writeUnitsPerReplay: round(wcu / metered, 3),
      readUnitsPerReplay: round(rcu / metered, 3),
      newKeyMedianMs: round(median(created), 3),
      n: replay.length,
    };
  });
  const results = {
    measuredAt: new Date().toISOString(),
    rounds: ROUNDS,
    keysPerRound: KEYS_PER_ROUND,
    machine: machine(),
    versions: versions(join(import.meta.dirname, '..')),
    rows,
  };
  writeFileSync(join(import.meta.dirname, 'valkey-outcome-cache.json'), `${JSON.stringify(results, null, 2)}\n`);
  const resultsFile = join(import.meta.dirname, 'RESULTS.md');
  writeFileSync(resultsFile, replaceSection(readFileSync(resultsFile, 'utf8'), VALKEY_CACHE_SECTION, render(results)));
  log('wrote bench/valkey-outcome-cache.json and its section of bench/RESULTS.md');
} catch (error) {
  exitCode = 1;
  log(`failed: ${(error as Error).stack ?? String(error)}`);
} finally {
  await valkey.stop();
  await dynamo.stop();
  log('stopped DynamoDB Local and redis-server');
}
process.exit(exitCode);

type Row = {
  name: string;
  replayMedianMs: number;
  replayP99Ms: number;
  replayVsJournal: number;
  journalCallsPerReplay: number;
  writeUnitsPerReplay: number;
  readUnitsPerReplay: number;
  newKeyMedianMs: number;
  n: number;
};

/** The RESULTS.md section of a run. */
function render(results: { measuredAt: string; rounds: number; machine: ReturnType<typeof machine>; rows: Row[] }) {
  const [putFirst, readFirst, cached] = results.rows;
  const { cpu, cores, node, loadAverage } = results.machine;
  const times = (a: number, b: number) => `${round(a / b, 1)}×`;
  return [
    '## A shared replay cache (ValkeyOutcomeCache)',
    '',
    `Measured ${results.measuredAt.slice(0, 10)} by \`npm run bench:valkey-cache\` (${results.rounds} rounds; [bench/valkey-outcome-cache.ts](valkey-outcome-cache.ts)); raw numbers in [valkey-outcome-cache.json](valkey-outcome-cache.json). Machine: ${cpu}, ${cores} cores, Node ${node}, load average ${loadAverage.join(' / ')} when the run began (shared with other jobs). Records in DynamoDB Local (in memory) on 127.0.0.1; the cache on one \`redis-server\` on 127.0.0.1, no persistence. Each round, container A (a guard of its own) completes ${KEYS_PER_ROUND} new keys, then container B — another guard on its own DynamoDB and Valkey clients, nothing of A's in memory — replays them: from the journal (no cache), or from a \`ValkeyOutcomeCache\` A filled. ${results.rounds} measured rounds after ${WARM_UP_ROUNDS} warm-up rounds, the order of contenders alternating round by round; ${putFirst.n} replays per contender. Journal calls counted on B's client; capacity units in a pass of their own (${KEYS_PER_ROUND} replays each), billed as \`bench:capacity\` bills them (a refused conditional put by item size, a strongly consistent read per 4 KB).`,
    '',
    '| replay served by | replay, median | p99 | ÷ journal (`put-first`) | journal calls per replay | write units | read units | new key in A, median |',
    '|---|---|---|---|---|---|---|---|',
    ...results.rows.map(
      (r) =>
        `| ${r.name} | ${r.replayMedianMs} ms | ${r.replayP99Ms} ms | ${r.replayVsJournal}× | ${r.journalCallsPerReplay} | ${r.writeUnitsPerReplay} | ${r.readUnitsPerReplay} | ${r.newKeyMedianMs} ms |`,
    ),
    '',
    `A replay another container completed costs one \`GET\` instead of a journal call: ${times(putFirst.replayMedianMs, cached.replayMedianMs)} faster (medians) than the journal's default replay, ${times(readFirst.replayMedianMs, cached.replayMedianMs)} than \`read-first\`'s, and it saves per replay ${putFirst.journalCallsPerReplay - cached.journalCallsPerReplay} journal call and the units that call is billed: ${putFirst.writeUnitsPerReplay} write unit under \`put-first\` (the refused conditional put), ${readFirst.readUnitsPerReplay} read unit under \`read-first\`. A new key pays for the cache: a \`GET\` that misses before the journal, and a \`SET\` after the completion that the invocation does not wait for (new key ${cached.newKeyMedianMs} ms with the cache, ${putFirst.newKeyMedianMs} ms without, on this loaded machine). DynamoDB Local and a loopback Valkey are not DynamoDB and ElastiCache: read the calls and units, and the ratios with care.`,
  ].join('\n');
}

import middy from '@middy/core';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DynamoDBJournal, httpIdempotency, type HttpIdempotencyOptions } from '../src/index.js';
import { startDynamoDBLocal } from '../src/testing/index.js';
import { benchClient, countCalls, createTable } from './harness/dynamodb.js';
import { lambdaContext, newKey, paymentEvent } from './harness/events.js';
import { HOT_KEY_SECTION } from './report-capacity.js';
import { median } from './harness/stats.js';

/**
 * Journal calls a burst of concurrent attempts of one key costs in one process (Lambda Managed Instances, a framework
 * door's server), with the process's single-flight and lease memory and without them. "Without" is each attempt on a
 * journal instance of its own, which is what separate processes are: nothing is shared. Median of repetitions, each
 * on a fresh key; calls counted on the DynamoDB client. Writes its section of bench/RESULTS.md.
 *
 * @example npx tsx bench/hot-key-burst.ts
 */
const here = dirname(fileURLToPath(import.meta.url));
// One log line and a few metrics per attempt, thousands of attempts: built, not printed (read when a guard is made).
process.env.POWERTOOLS_LOG_LEVEL ??= 'SILENT';
process.env.POWERTOOLS_METRICS_DISABLED ??= 'true';
const BURSTS = [10, 100, 300];
const REPETITIONS = 5;
const HANDLER_MS = 50;
const log = (line: string) => process.stderr.write(`[hot-key-burst] ${line}\n`);

type Guarded = (event: APIGatewayProxyEventV2) => Promise<unknown>;

const slowPayment = async () => {
  await new Promise((resolve) => setTimeout(resolve, HANDLER_MS));
  return { statusCode: 201, headers: { 'content-type': 'application/json' }, body: '{"id":"pay_1"}' };
};

function guardOn(journal: DynamoDBJournal, options: Partial<HttpIdempotencyOptions> = {}): Guarded {
  const wrapped = middy(slowPayment).use(httpIdempotency({ journal, ...options }));
  return (event) => wrapped(event, lambdaContext());
}

interface Row {
  readonly situation: string;
  readonly burst: number;
  readonly shared: number;
  readonly unshared: number;
}

const server = await startDynamoDBLocal();
log(`DynamoDB Local pid ${server.pid} at ${server.endpoint}`);
const rows: Row[] = [];
try {
  const client = benchClient(server.endpoint);
  const calls = countCalls(client);
  const tableName = await createTable(client, 'hot', 'pk');
  /** One process: one journal instance, one guard, every attempt through it. */
  const oneProcess = () => {
    const guarded = guardOn(new DynamoDBJournal({ tableName, client }));
    return () => guarded;
  };
  /** No sharing: every attempt on a journal instance (and guard) of its own. */
  const separate = () => () => guardOn(new DynamoDBJournal({ tableName, client }));
  /** Another process, whose attempt holds its lease for the whole measurement. */
  const otherProcess = middy(async () => {
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    return { statusCode: 201, body: '{}' };
  }).use(httpIdempotency({ journal: new DynamoDBJournal({ tableName, client: benchClient(server.endpoint) }) }));
  const held: Promise<unknown>[] = [];

  const situations: {
    name: string;
    prepare: (key: string) => Promise<unknown>;
    waves?: number;
  }[] = [
    { name: 'new key, handler 50 ms', prepare: async () => undefined },
    {
      name: 'completed key (replay)',
      prepare: (key) => guardOn(new DynamoDBJournal({ tableName, client }))(paymentEvent(key)),
    },
    {
      name: 'key held by another process (two bursts)',
      prepare: async (key) => {
        held.push(otherProcess(paymentEvent(key), lambdaContext()));
        await new Promise((resolve) => setTimeout(resolve, 100));
      },
      waves: 2,
    },
  ];

  for (const situation of situations) {
    for (const burst of BURSTS) {
      const measured: Record<'shared' | 'unshared', number[]> = { shared: [], unshared: [] };
      for (let rep = 0; rep < REPETITIONS; rep++) {
        for (const [mode, guards] of [
          ['shared', oneProcess()],
          ['unshared', separate()],
        ] as const) {
          const key = newKey();
          await situation.prepare(key);
          await new Promise((resolve) => setTimeout(resolve, 20));
          calls.reset();
          for (let wave = 0; wave < (situation.waves ?? 1); wave++) {
            await Promise.all(Array.from({ length: burst }, () => guards()(paymentEvent(key))));
          }
          measured[mode].push(calls.total());
        }
      }
      const row = {
        situation: situation.name,
        burst,
        shared: median(measured.shared),
        unshared: median(measured.unshared),
      };
      log(JSON.stringify(row));
      rows.push(row);
    }
  }
  await Promise.all(held);
} finally {
  await server.stop();
  log(`stopped DynamoDB Local (pid ${server.pid})`);
}

const section = [
  HOT_KEY_SECTION.start,
  '## A burst on one key in one process',
  '',
  `Measured ${new Date().toISOString().slice(0, 10)} by \`npx tsx bench/hot-key-burst.ts\`: DynamoDB calls a burst of concurrent attempts of one key costs in one process (Lambda Managed Instances, a framework door's server), counted on the client, median of ${REPETITIONS} repetitions on fresh keys. "One process" is one guard on one journal instance (the single-flight and the lease memory share calls); "separate" gives every attempt a journal instance of its own, as separate processes would have (nothing shared, the behaviour before 0.2.0).`,
  '',
  '| situation | burst | calls, one process | calls, separate |',
  '|---|---|---|---|',
  ...rows.map((r) => `| ${r.situation} | ${r.burst} | ${r.shared} | ${r.unshared} |`),
  '',
  'A new key costs its reservation and its completion whatever the burst (the others lose to the shared reservation: 409); a completed key one shared reservation call (refused, returning the record); a key another process holds one shared reservation call for the first burst and none for the second (the lease is remembered for up to a second, never past its end). Replays spread over time rather than concurrent are what an `outcomeCache` is for.',
  HOT_KEY_SECTION.end,
].join('\n');
const path = join(here, 'RESULTS.md');
const previous = await readFile(path, 'utf8');
const start = previous.indexOf(HOT_KEY_SECTION.start);
const end = previous.indexOf(HOT_KEY_SECTION.end);
const next =
  start === -1 || end === -1
    ? `${previous.trimEnd()}\n\n${section}\n`
    : `${previous.slice(0, start)}${section}${previous.slice(end + HOT_KEY_SECTION.end.length)}`;
await writeFile(path, next);
log('wrote its section of bench/RESULTS.md');
process.exit(0);

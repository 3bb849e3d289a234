/**
 * `npm run bench:valkey`: what the Valkey journal costs per invocation, on one redis-server on
 * 127.0.0.1 (no disk), against the floor (one raw `SET NX PX` round trip on the same server) and
 * Powertools' cache persistence layer (`CachePersistenceLayer` over `@redis/client`).
 *
 * Sequential invocations in a warm container: every round runs a batch of new keys, then the same
 * keys again (replays), for each contender in turn (the order alternating round by round, so
 * machine drift lands on all alike). Writes bench/valkey.json and prints the table RESULTS.md shows.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { IdempotencyConfig } from '@aws-lambda-powertools/idempotency';
import { CachePersistenceLayer } from '@aws-lambda-powertools/idempotency/cache';
import { makeHandlerIdempotent } from '@aws-lambda-powertools/idempotency/middleware';
import middy from '@middy/core';
import { createClient } from '@redis/client';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { httpIdempotency } from '../src/index.js';
import { ValkeyJournal } from '../src/entries/valkey.js';
import { startValkeyServer } from '../test/support/valkey.js';
import { createPayment } from './fixtures/create-payment.js';
import { lambdaContext, newKey, paymentEvent } from './harness/events.js';
import { machine, versions } from './harness/machine.js';
import { median, percentile, round } from './harness/stats.js';

process.env.POWERTOOLS_LOG_LEVEL = 'SILENT';
process.env.POWERTOOLS_METRICS_DISABLED = 'true';

const ROUNDS = Number(process.env.BENCH_VALKEY_ROUNDS ?? 20);
const WARM_UP_ROUNDS = 2;
const KEYS_PER_ROUND = 50;
const TTL_SECONDS = 86_400;

type Invoke = (event: APIGatewayProxyEventV2) => Promise<unknown>;
interface Contender {
  readonly name: string;
  readonly invoke: Invoke;
  /** False for the floor: a raw SET has no replay. */
  readonly replays: boolean;
}

const server = await startValkeyServer();
const redis = await createClient({ socket: { host: '127.0.0.1', port: server.port } }).connect();
try {
  const quiet = { warn: () => undefined };
  const guarded = (journal: ValkeyJournal): Invoke => {
    const handler = middy(createPayment()).use(httpIdempotency({ journal, ttlSeconds: TTL_SECONDS }));
    return (event) => handler(event, lambdaContext());
  };
  const powertools = middy(createPayment()).use(
    makeHandlerIdempotent({
      persistenceStore: new CachePersistenceLayer({ client: redis }),
      config: new IdempotencyConfig({
        eventKeyJmesPath: 'headers."idempotency-key"',
        throwOnNoIdempotencyKey: true,
        expiresAfterSeconds: TTL_SECONDS,
      }),
      keyPrefix: 'create-payment',
    }),
  );
  const raw = server.client();
  const contenders: readonly Contender[] = [
    {
      name: 'ValkeyJournal',
      invoke: guarded(new ValkeyJournal({ client: server.client(), logger: quiet })),
      replays: true,
    },
    {
      name: 'ValkeyJournal + WAIT 0',
      invoke: guarded(
        new ValkeyJournal({ client: server.client(), logger: quiet, waitForReplicas: { replicas: 0, timeoutMs: 100 } }),
      ),
      replays: true,
    },
    { name: 'Powertools CachePersistenceLayer', invoke: (event) => powertools(event, lambdaContext()), replays: true },
    {
      name: 'raw SET NX PX',
      invoke: (event) => raw.set(`raw:${event.headers['idempotency-key']}`, '1', 'PX', TTL_SECONDS * 1000, 'NX'),
      replays: false,
    },
  ];

  const samples = new Map(contenders.map(({ name }) => [name, { newKey: [] as number[], replay: [] as number[] }]));
  for (let roundIndex = 0; roundIndex < WARM_UP_ROUNDS + ROUNDS; roundIndex++) {
    const order = roundIndex % 2 === 0 ? contenders : [...contenders].reverse();
    for (const contender of order) {
      const events = Array.from({ length: KEYS_PER_ROUND }, () => paymentEvent(newKey()));
      for (const [phase, batch] of [
        ['newKey', events],
        ['replay', contender.replays ? events : []],
      ] as const) {
        for (const event of batch) {
          const started = process.hrtime.bigint();
          await contender.invoke(event);
          const elapsedMs = Number(process.hrtime.bigint() - started) / 1e6;
          if (roundIndex >= WARM_UP_ROUNDS) samples.get(contender.name)![phase].push(elapsedMs);
        }
      }
    }
  }

  const floor = median(samples.get('raw SET NX PX')!.newKey);
  const rows = contenders.map(({ name, replays }) => {
    const { newKey: created, replay } = samples.get(name)!;
    return {
      name,
      newKeyMedianMs: round(median(created), 3),
      newKeyP99Ms: round(percentile(created, 99), 3),
      newKeyVsRawSet: round(median(created) / floor, 2),
      replayMedianMs: replays ? round(median(replay), 3) : undefined,
      replayP99Ms: replays ? round(percentile(replay, 99), 3) : undefined,
      n: created.length,
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
  writeFileSync(join(import.meta.dirname, 'valkey.json'), `${JSON.stringify(results, null, 2)}\n`);
  console.log('| contender | new key median (p99) | × raw SET NX PX | replay median (p99) |');
  console.log('|---|---|---|---|');
  for (const row of rows)
    console.log(
      `| ${row.name} | ${row.newKeyMedianMs} ms (${row.newKeyP99Ms}) | ${row.newKeyVsRawSet}× | ${
        row.replayMedianMs === undefined ? '—' : `${row.replayMedianMs} ms (${row.replayP99Ms})`
      } |`,
    );
} finally {
  await redis.quit().catch(() => undefined);
  await server.stop();
}

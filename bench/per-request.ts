import { DynamoDBClient, TransactWriteItemsCommand } from '@aws-sdk/client-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import middy from '@middy/core';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { spawnSync } from 'node:child_process';
import { callgrindInstructions } from './harness/callgrind.js';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { AsyncLocalStorage } from 'node:async_hooks';
import { Session } from 'node:inspector';
import { Readable } from 'node:stream';
import { Logger } from '@aws-lambda-powertools/logger';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import { DynamoDBJournal, httpIdempotency, idempotencyOf } from '../src/index.js';
import { createPayment } from './fixtures/create-payment.js';
import { paymentResponse, recordPayment } from './fixtures/record-payment.js';
import { powertoolsIdempotency, TTL_SECONDS } from './harness/contenders.js';
import { lambdaContext, newKey, paymentEvent } from './harness/events.js';
import { floorRecordItem } from './harness/writing-contenders.js';
import { median } from './harness/stats.js';

/**
 * The work each guard does per request besides waiting for DynamoDB: every contender runs
 * against an SDK client whose HTTP handler answers at once (`{}`, HTTP 200), so the time left
 * is marshalling, serialization and signing, the guard's own work and its telemetry, measured
 * in CPU time (`process.cpuUsage`, which load on other processes does not add to), rounds
 * alternating. `--profile` also samples each contender under `--cpu-prof` and sums the self
 * time per source file. Writes bench/per-request.json.
 *
 * @example npx tsx bench/per-request.ts --rounds 15 --per-round 400 --profile
 */
const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..');

/** The contenders, in report order. */
export const PER_REQUEST = {
  floor: 'bare 2-item `TransactWriteItems` (floor)',
  stagedOnly: "idemkit `effects: 'staged-only'`, one staged `Put`",
  idemkit: 'idemkit default, new key, no write',
  powertools: 'Powertools, new key, no write',
  idemkitQuiet: 'idemkit default, its log line and metric switched off (no-op sinks)',
  idemkitOwnClient: "idemkit default, its journal's client configured as the one it builds (`cacheMiddleware: true`)",
  powertoolsObserved: 'Powertools + Logger + Metrics, the handler writing one log line and one metric',
} as const;
type Contender = keyof typeof PER_REQUEST;
const CONTENDERS = Object.keys(PER_REQUEST) as Contender[];

function argument(name: string, fallback: number): number {
  const index = process.argv.indexOf(name);
  return index === -1 ? fallback : Number(process.argv[index + 1]);
}

/**
 * A client whose every call is answered at once with `{}`; counts the request bytes it was sent. Every contender
 * gets one configured alike (the SDK's defaults), except the one measuring the client idemkit builds for itself.
 */
function cannedClient(bytes: { sent: number }, cacheMiddleware = false): DynamoDBClient {
  return new DynamoDBClient({
    region: 'us-east-1',
    cacheMiddleware,
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    requestHandler: {
      handle: async (request: { body?: string | Uint8Array }) => {
        const body = request.body;
        bytes.sent += typeof body === 'string' ? Buffer.byteLength(body) : (body?.byteLength ?? 0);
        return {
          response: {
            statusCode: 200,
            reason: 'OK',
            headers: { 'content-type': 'application/x-amz-json-1.0' },
            body: Readable.from([Buffer.from('{}')]),
          },
        };
      },
    } as never,
  });
}

type Invoke = (event: APIGatewayProxyEventV2) => Promise<unknown>;

function build(contender: Contender, bytes: { sent: number }): Invoke {
  const client = cannedClient(bytes);
  if (contender === 'floor') {
    return async (event) => {
      const request = JSON.parse(event.body ?? '{}') as { amount?: number; currency?: string };
      const { id, answer } = paymentResponse(request);
      const key = event.headers['idempotency-key'] ?? '';
      const now = Date.now();
      const record = floorRecordItem(key, answer, now);
      const payment = { pk: `pay#${id}`, idempotencyKey: key, amount: request.amount, currency: request.currency };
      await client.send(
        new TransactWriteItemsCommand({
          TransactItems: [
            { Put: { TableName: 'journal', Item: marshall(record), ConditionExpression: 'attribute_not_exists(pk)' } },
            { Put: { TableName: 'payments', Item: marshall({ ...payment, status: 'succeeded', createdAt: now }) } },
          ],
        }),
      );
      return answer;
    };
  }
  if (contender === 'powertools') {
    const handler = middy(createPayment()).use(powertoolsIdempotency(client, 'powertools').middleware);
    return (event) => handler(event, lambdaContext());
  }
  if (contender === 'powertoolsObserved') {
    // The observability idemkit gives each attempt, written by hand around the same Powertools guard.
    const logger = new Logger({ serviceName: 'payments' });
    const metrics = new Metrics({ namespace: 'payments', serviceName: 'payments' });
    const payment = createPayment();
    const observed = async (event: APIGatewayProxyEventV2) => {
      const answer = await payment(event);
      logger.info('idempotency', {
        idempotency_key_hash: event.headers['idempotency-key'],
        idempotency_status: 'new',
        response_code: answer.statusCode,
        resource_id: answer.headers?.location,
      });
      metrics.addDimension('Operation', 'POST /payments');
      metrics.addMetric('NewRequest', MetricUnit.Count, 1);
      return answer;
    };
    const handler = middy(observed)
      .use(injectLambdaContext(logger))
      .use(logMetrics(metrics))
      .use(powertoolsIdempotency(client, 'powertools').middleware);
    return (event) => handler(event, lambdaContext());
  }
  if (contender === 'idemkitOwnClient') {
    const journal = new DynamoDBJournal({ tableName: 'journal', client: cannedClient(bytes, true) });
    const handler = middy(createPayment()).use(httpIdempotency({ journal, ttlSeconds: TTL_SECONDS }));
    return (event) => handler(event, lambdaContext());
  }
  const journal = new DynamoDBJournal({ tableName: 'journal', client });
  if (contender === 'idemkit') {
    const handler = middy(createPayment()).use(httpIdempotency({ journal, ttlSeconds: TTL_SECONDS }));
    return (event) => handler(event, lambdaContext());
  }
  if (contender === 'idemkitQuiet') {
    const logger = { info: () => undefined, error: () => undefined };
    const single = { addDimension: () => undefined, addMetric: () => undefined };
    const metrics = { singleMetric: () => single } as never;
    const handler = middy(createPayment()).use(httpIdempotency({ journal, ttlSeconds: TTL_SECONDS, logger, metrics }));
    return (event) => handler(event, lambdaContext());
  }
  const handler = middy(
    recordPayment((item, context) => {
      idempotencyOf(context).stage({ Put: { TableName: 'payments', Item: { ...item } } });
    }),
  ).use(httpIdempotency({ journal, ttlSeconds: TTL_SECONDS, effects: 'staged-only' }));
  return (event) => handler(event, lambdaContext());
}

/** CPU microseconds per request over `count` new-key requests. */
async function cpuPerRequest(invoke: Invoke, count: number): Promise<number> {
  const events = Array.from({ length: count }, () => paymentEvent(newKey()));
  const started = process.cpuUsage();
  for (const event of events) await invoke(event);
  const used = process.cpuUsage(started);
  return (used.user + used.system) / count;
}

async function measure(rounds: number, perRound: number, only?: Contender) {
  const contenders = only ? [only] : CONTENDERS;
  const bytes = Object.fromEntries(contenders.map((c) => [c, { sent: 0 }])) as Record<Contender, { sent: number }>;
  const invokers = Object.fromEntries(contenders.map((c) => [c, build(c, bytes[c])])) as Record<Contender, Invoke>;
  for (const c of contenders) await cpuPerRequest(invokers[c], perRound); // warm-up
  const samples = Object.fromEntries(contenders.map((c) => [c, [] as number[]])) as Record<Contender, number[]>;
  for (let round = 0; round < rounds; round++) {
    const order = contenders.map((_, i) => contenders[(i + round) % contenders.length]);
    for (const c of order) samples[c].push(await cpuPerRequest(invokers[c], perRound));
  }
  const requestsSent = (warmup: number) => warmup + rounds * perRound;
  return Object.fromEntries(
    contenders.map((c) => [
      c,
      {
        cpuMicrosPerRequest: Number(median(samples[c]).toFixed(1)),
        rounds: samples[c].map((s) => Number(s.toFixed(1))),
        requestBytesPerRequest: Math.round(bytes[c].sent / requestsSent(perRound)),
      },
    ]),
  ) as Record<Contender, { cpuMicrosPerRequest: number; rounds: number[]; requestBytesPerRequest: number }>;
}

/** Self time per source file (idemkit's own files by path, dependencies by package), from `--cpu-prof` runs. */
function profile(contender: Contender, perRun: number): Record<string, number> {
  const dir = mkdtempSync(join(tmpdir(), 'idemkit-per-request-'));
  try {
    const run = spawnSync(
      process.execPath,
      [
        '--import',
        'tsx',
        fileURLToPath(import.meta.url),
        '--only',
        contender,
        '--per-round',
        String(perRun),
        '--out',
        dir,
      ],
      { cwd: root, env: process.env, stdio: ['ignore', 'ignore', 'inherit'] },
    );
    if (run.status !== 0) throw new Error(`profiling ${contender} failed`);
    type Node = { id: number; callFrame: { url: string; functionName: string } };
    const [name] = readdirSync(dir);
    const prof = JSON.parse(readFileSync(join(dir, name), 'utf8')) as {
      nodes: Node[];
      samples: number[];
      timeDeltas: number[];
    };
    const byId = new Map(prof.nodes.map((n) => [n.id, n]));
    const self = new Map<string, number>();
    prof.samples.forEach((id, i) => {
      const { url, functionName } = byId.get(id)!.callFrame;
      let origin: string;
      const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
      if (pkg) origin = pkg[1];
      else if (url.startsWith('file://')) origin = relative(root, fileURLToPath(url));
      else origin = url || `(${functionName || 'program'})`;
      self.set(origin, (self.get(origin) ?? 0) + prof.timeDeltas[i] / 1000 / perRun);
    });
    return Object.fromEntries(
      [...self].sort((a, b) => b[1] - a[1]).map(([k, v]) => [k, Number((v * 1000).toFixed(1))]),
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Instructions per request of one contender, counted by valgrind's callgrind (deterministic under any load): the
 * process run with `--count` 140 less the one run with 40, divided by 100, so start-up and warm-up cancel out.
 */
function instructionsPerRequest(contender: Contender): number {
  const count = (requests: number) =>
    callgrindInstructions(
      ['--import', 'tsx', fileURLToPath(import.meta.url), '--only', contender, '--count', String(requests)],
      { cwd: root, env: process.env },
    );
  return (count(140) - count(40)) / 100;
}

// As before the conflict tally was left out of single-Region journals' calls: one AsyncLocalStorage run, which turns on
// async hooks for the whole process.
if (process.argv.includes('--with-tally')) new AsyncLocalStorage().run({}, () => undefined);

const onlyIndex = process.argv.indexOf('--only');
const countIndex = process.argv.indexOf('--count');
if (countIndex !== -1) {
  // Under callgrind: one contender, warmed up, then `--count` requests; two counts give instructions per request.
  const only = process.argv[onlyIndex + 1] as Contender;
  const invoke = build(only, { sent: 0 });
  await cpuPerRequest(invoke, 100);
  await cpuPerRequest(invoke, Number(process.argv[countIndex + 1]));
} else if (onlyIndex !== -1) {
  // A profiled child: one contender, warmed up, then profiled over one long round only.
  const only = process.argv[onlyIndex + 1] as Contender;
  const perRun = argument('--per-round', 2000);
  const invoke = build(only, { sent: 0 });
  await cpuPerRequest(invoke, 500);
  const session = new Session();
  session.connect();
  const post = (method: string, params?: object) =>
    new Promise<unknown>((resolve, reject) =>
      session.post(method, params, (error, result) => (error ? reject(error) : resolve(result))),
    );
  await post('Profiler.enable');
  await post('Profiler.setSamplingInterval', { interval: 100 });
  await post('Profiler.start');
  await cpuPerRequest(invoke, perRun);
  const { profile: taken } = (await post('Profiler.stop')) as { profile: unknown };
  writeFileSync(join(process.argv[process.argv.indexOf('--out') + 1], 'run.cpuprofile'), JSON.stringify(taken));
} else {
  const rounds = argument('--rounds', 15);
  const perRound = argument('--per-round', 400);
  const telemetry = process.env.POWERTOOLS_LOG_LEVEL === 'SILENT' ? 'built, not printed' : 'printed';
  const results = await measure(rounds, perRound);
  const profiles = process.argv.includes('--profile')
    ? Object.fromEntries(CONTENDERS.map((c) => [c, profile(c, 3000)]))
    : undefined;
  const instructions = process.argv.includes('--callgrind')
    ? Object.fromEntries(CONTENDERS.map((c) => [c, Math.round(instructionsPerRequest(c))]))
    : undefined;
  const out = {
    measuredAt: new Date().toISOString(),
    node: process.version,
    telemetry,
    rounds,
    perRound,
    results,
    instructionsPerRequest: instructions,
    profiles,
  };
  const tally = process.argv.includes('--with-tally') ? '-with-tally' : '';
  const file = join(here, `per-request${telemetry === 'printed' ? '-printed' : ''}${tally}.json`);
  writeFileSync(file, `${JSON.stringify(out, null, 2)}\n`);
  for (const c of CONTENDERS)
    process.stderr.write(
      `${c.padEnd(18)} ${String(results[c].cpuMicrosPerRequest).padStart(7)} µs CPU/request  ${results[c].requestBytesPerRequest} B sent${instructions ? `  ${(instructions[c] / 1e6).toFixed(2)} M instructions/request` : ''}\n`,
    );
  if (profiles)
    for (const c of CONTENDERS)
      process.stderr.write(`${c}: ${JSON.stringify(Object.entries(profiles[c]).slice(0, 18))}\n`);
}

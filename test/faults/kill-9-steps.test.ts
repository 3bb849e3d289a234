import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { RecordStatus, type JournalRecord } from '../../src/index.js';
import type { StopAt } from './fixtures/step-worker.js';
import { problemType } from './support/payment-fixture.js';
import { faultEnvironment, paymentEvent, type FaultEnvironment } from './support/fault-environment.js';

const TSX = join(__dirname, '../../node_modules/.bin/tsx');
const WORKER = join(__dirname, 'fixtures/step-worker.ts');
const READY_TIMEOUT_MS = 30_000;
/**
 * The killed worker's lease: long enough that the retry made "inside the lease" still is on a
 * loaded machine (spawning, killing and reading five workers at once can take over a second).
 */
const WORKER_LEASE_MS = 4_000;
const STOPS: readonly StopAt[] = [
  'before-reserve',
  'after-reserve',
  'after-begin-effect',
  'after-side-effect',
  'after-complete',
];

type Answer = Awaited<ReturnType<ReturnType<FaultEnvironment['healthy']>>>;

/** Runs the worker until it reaches `stopAt`, then kills it with SIGKILL (by its PID) and waits for it to exit. */
async function killAt(env: FaultEnvironment, stopAt: StopAt, key: string): Promise<void> {
  const child = spawn(TSX, [WORKER], {
    env: {
      ...process.env,
      ENDPOINT: process.env.IDEMKIT_TEST_DYNAMODB_ENDPOINT,
      TABLE: env.journal.tableName,
      LEDGER: env.tables.ledger,
      RAIL: env.tables.rail,
      KEY: key,
      STOP_AT: stopAt,
      LEASE_MS: String(WORKER_LEASE_MS),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  let timer: NodeJS.Timeout | undefined;
  try {
    await new Promise<void>((resolve, reject) => {
      child.stderr.on('data', (d) => (output += d));
      child.stdout.on('data', (d) => {
        output += d;
        if (output.includes('READY')) resolve();
      });
      child.on('exit', (code) => reject(new Error(`worker exited (${code}) before READY at ${stopAt}: ${output}`)));
      timer = setTimeout(
        () => reject(new Error(`worker did not reach ${stopAt} in ${READY_TIMEOUT_MS} ms: ${output}`)),
        READY_TIMEOUT_MS,
      );
    });
  } finally {
    clearTimeout(timer);
    if (child.exitCode === null && child.signalCode === null) process.kill(child.pid!, 'SIGKILL');
    await exited;
  }
}

describe('a guarded handler killed with SIGKILL at each step boundary, on DynamoDB Local', () => {
  let env: FaultEnvironment;
  /** The record each killed process left behind, read before any retry. */
  const left = new Map<StopAt, JournalRecord | undefined>();
  /** The answer of a retry made at once, inside the dead process's lease. */
  const inLease = new Map<StopAt, Answer>();
  const key = (stopAt: StopAt) => `kill-${stopAt}`;

  beforeAll(async () => {
    env = await faultEnvironment();
    await Promise.all(
      STOPS.map(async (stopAt) => {
        await killAt(env, stopAt, key(stopAt));
        left.set(stopAt, await env.journal.get(env.pk(key(stopAt))));
        if (stopAt === 'after-reserve' || stopAt === 'after-complete')
          inLease.set(stopAt, await env.healthy()(paymentEvent(key(stopAt))));
      }),
    );
    await new Promise((resolve) => setTimeout(resolve, WORKER_LEASE_MS + 150));
  }, 60_000);

  it('before the reservation: nothing is left behind and the retry charges once', async () => {
    const retry = await env.healthy()(paymentEvent(key('before-reserve')));

    expect(left.get('before-reserve')).toBeUndefined();
    expect(retry.statusCode).toBe(201);
    expect(JSON.parse(retry.body).attempt).toBe(1);
    expect(await env.rail(key('before-reserve'))).toBe(1);
    expect(await env.ledger(key('before-reserve'))).toBe(1);
  });

  it('after the reservation: 409 inside the lease, then one takeover charges once and its outcome replays', async () => {
    const retry = await env.healthy()(paymentEvent(key('after-reserve')));
    const replay = await env.healthy()(paymentEvent(key('after-reserve')));

    expect(left.get('after-reserve')).toMatchObject({
      status: RecordStatus.inProgress,
      effectStarted: false,
      attempt: 1,
    });
    expect(problemType(inLease.get('after-reserve')!)).toBe('urn:idemkit:problem:request-in-progress');
    expect(JSON.parse(retry.body).attempt).toBe(2);
    expect(replay).toMatchObject({ statusCode: 201, body: retry.body, headers: { 'Idempotent-Replayed': 'true' } });
    expect(await env.rail(key('after-reserve'))).toBe(1);
    expect(await env.ledger(key('after-reserve'))).toBe(1);
  });

  it('after beginEffect: every retry after the lease answers 409 needs-review, the record turns UNKNOWN, nothing is charged again', async () => {
    const retry = await env.healthy()(paymentEvent(key('after-begin-effect')));
    const again = await env.healthy()(paymentEvent(key('after-begin-effect')));
    const record = await env.journal.get(env.pk(key('after-begin-effect')));

    expect(left.get('after-begin-effect')).toMatchObject({ status: RecordStatus.inProgress, effectStarted: true });
    expect(problemType(retry)).toBe('urn:idemkit:problem:needs-review');
    expect(problemType(again)).toBe('urn:idemkit:problem:needs-review');
    expect(record).toMatchObject({ status: RecordStatus.unknown, attempt: 1 });
    expect(record?.expiresAtEpochSeconds).toBeUndefined();
    expect(await env.rail(key('after-begin-effect'))).toBe(0);
    expect(await env.ledger(key('after-begin-effect'))).toBe(0);
  });

  it('after the side effect: needs-review keeps the evidence, and resolving it makes every retry replay that outcome without charging again', async () => {
    const pk = env.pk(key('after-side-effect'));
    const retry = await env.healthy()(paymentEvent(key('after-side-effect')));
    const evidence = (await env.journal.get(pk))?.evidence;
    await env.journal.resolve(pk, {
      outcome: 'completed',
      response: { statusCode: 201, body: JSON.stringify({ chargeId: evidence?.chargeId }) },
      ttlSeconds: 3600,
    });
    const replay = await env.healthy()(paymentEvent(key('after-side-effect')));

    expect(problemType(retry)).toBe('urn:idemkit:problem:needs-review');
    expect(evidence?.chargeId).toMatch(/^ch_/);
    expect(replay).toMatchObject({
      statusCode: 201,
      body: JSON.stringify({ chargeId: evidence?.chargeId }),
      headers: { 'Idempotent-Replayed': 'true' },
    });
    expect(await env.rail(key('after-side-effect'))).toBe(1);
    expect(await env.ledger(key('after-side-effect'))).toBe(0);
  });

  it('after the completion, before the answer: every retry replays the stored outcome, in the lease and after it', async () => {
    const retry = await env.healthy()(paymentEvent(key('after-complete')));
    const stored = left.get('after-complete');

    expect(stored).toMatchObject({ status: RecordStatus.completed, attempt: 1 });
    expect(inLease.get('after-complete')).toMatchObject({
      statusCode: 201,
      body: (stored?.response?.value as Answer).body,
      headers: { 'Idempotent-Replayed': 'true' },
    });
    expect(retry).toMatchObject({
      statusCode: 201,
      body: inLease.get('after-complete')!.body,
      headers: { 'Idempotent-Replayed': 'true' },
    });
    expect(await env.rail(key('after-complete'))).toBe(1);
    expect(await env.ledger(key('after-complete'))).toBe(1);
  });
});

import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { DynamoDBJournal } from '../../src/index.js';
import { runCli } from '../../src/cli/index.js';
import { createJournalTable, localClient } from '../support/dynamodb.js';
import { httpEvent } from '../support/lambda.js';
import { guard } from '../http/guarded-handler.js';
import { requestPk } from '../../src/entries/journal.js';

const LEASE_MS = 800;
const TSX = join(__dirname, '../../node_modules/.bin/tsx');
const WORKER = join(__dirname, 'fixtures/crash-worker.ts');

/** Runs the worker until it reaches `phase`, then kills it with SIGKILL. */
async function crashAt(phase: 'before-effect' | 'after-effect', tableName: string, key: string): Promise<void> {
  const child = spawn(TSX, [WORKER], {
    env: {
      ...process.env,
      ENDPOINT: process.env.IDEMKIT_TEST_DYNAMODB_ENDPOINT,
      TABLE: tableName,
      KEY: key,
      PHASE: phase,
      LEASE_MS: String(LEASE_MS),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (d) => String(d).includes('READY') && resolve());
    child.on('exit', (code) => reject(new Error(`worker exited (${code}) before READY: ${stderr}`)));
  });
  const exited = new Promise((resolve) => child.on('exit', resolve));
  child.kill('SIGKILL');
  await exited;
  await new Promise((resolve) => setTimeout(resolve, LEASE_MS + 100));
}

describe('a process killed with SIGKILL inside the handler', () => {
  const client = localClient();
  let tableName: string;
  let journal: DynamoDBJournal;
  const cli = async (...args: string[]) => {
    const out: string[] = [];
    const code = await runCli(
      ['--table', tableName, '--endpoint', process.env.IDEMKIT_TEST_DYNAMODB_ENDPOINT!, ...args],
      { out: (t) => out.push(t), err: (t) => out.push(t) },
    );
    return { code, text: out.join('\n') };
  };
  beforeAll(async () => {
    tableName = await createJournalTable(client);
    journal = new DynamoDBJournal({ tableName, client });
  });

  it('before beginEffect: the retry after the lease runs the handler again', async () => {
    await crashAt('before-effect', tableName, 'kill-before');
    let runs = 0;
    const answer = await guard(
      async () => ({ statusCode: 201, body: `run ${++runs}` }),
      journal,
    )(httpEvent({ key: 'kill-before', body: { amount: 1250 } }));
    expect(answer).toMatchObject({ statusCode: 201, body: 'run 1' });
    expect((await journal.get(requestPk('-', 'POST /payments', 'kill-before')))?.attempt).toBe(2);
  }, 30_000);

  it('after beginEffect: the retry reaches recover with the recorded evidence', async () => {
    await crashAt('after-effect', tableName, 'kill-recover');
    const seen: unknown[] = [];
    const handler = jest.fn(async () => ({ statusCode: 201, body: 'charged again' }));
    const answer = await guard(handler, journal, {
      recover: async (scope) => {
        seen.push({ recovering: scope.recovering, evidence: scope.evidence, attempt: scope.attempt });
        return {
          outcome: 'completed',
          response: { statusCode: 201, body: JSON.stringify({ chargeId: scope.evidence.chargeId }) },
        };
      },
    })(httpEvent({ key: 'kill-recover', body: { amount: 1250 } }));
    expect(seen).toEqual([{ recovering: true, evidence: { chargeId: 'ch_123' }, attempt: 2 }]);
    expect(answer).toMatchObject({ statusCode: 201, body: '{"chargeId":"ch_123"}' });
    expect(handler).not.toHaveBeenCalled();
  }, 30_000);

  it('after beginEffect without a hook: UNKNOWN, listed by `idemkit stuck`, cleared by `idemkit resolve`', async () => {
    await crashAt('after-effect', tableName, 'kill-unknown');
    const handler = jest.fn(async () => ({ statusCode: 201, body: 'charged again' }));
    const guarded = guard(handler, journal);
    const answer = await guarded(httpEvent({ key: 'kill-unknown', body: { amount: 1250 } }));
    expect(answer.statusCode).toBe(409);
    expect(JSON.parse(answer.body).type).toBe('urn:idemkit:problem:needs-review');
    const pk = requestPk('-', 'POST /payments', 'kill-unknown');
    const stuck = await cli('stuck');
    expect(stuck.code).toBe(0);
    expect(stuck.text).toMatch(
      new RegExp(`${pk.replace(/[#/]/g, '.')}\\s+UNKNOWN\\s+1\\s+-\\s+charge\\s+chargeId=ch_123`),
    );
    const resolved = await cli(
      'resolve',
      pk,
      '--completed',
      '{"statusCode":201,"body":"{\\"chargeId\\":\\"ch_123\\"}"}',
    );
    expect(resolved).toMatchObject({ code: 0 });
    const replay = await guarded(httpEvent({ key: 'kill-unknown', body: { amount: 1250 } }));
    expect(replay).toMatchObject({ statusCode: 201, body: '{"chargeId":"ch_123"}' });
    expect(handler).not.toHaveBeenCalled();
    expect((await cli('stuck')).text).not.toContain('kill-unknown');
  }, 30_000);
});

import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { matchRoute } from '../../scripts/local-api/router.js';

const ROOT = join(__dirname, '../..');

describe('matchRoute', () => {
  const routes = ['POST /payments', 'GET /payments/{id}', 'POST /payments/{id}/refunds'].map((routeKey) => ({ routeKey, handler: async () => ({ statusCode: 200 }) }));

  it('captures path parameters and needs every literal segment', () => {
    expect(matchRoute(routes, 'POST', '/payments/pay_1/refunds')).toMatchObject({ route: { routeKey: 'POST /payments/{id}/refunds' }, pathParameters: { id: 'pay_1' } });
    expect(matchRoute(routes, 'GET', '/payments/pay%201')?.pathParameters).toEqual({ id: 'pay 1' });
    expect(matchRoute(routes, 'GET', '/payments')).toBeUndefined();
    expect(matchRoute(routes, 'DELETE', '/payments/pay_1')).toBeUndefined();
  });
});

describe('npm start (the local payments API)', () => {
  let child: ChildProcess;
  let output = '';
  let url: string;

  beforeAll(async () => {
    child = spawn(join(ROOT, 'node_modules/.bin/tsx'), [join(ROOT, 'scripts/local-api/main.ts')], { cwd: ROOT, env: { ...process.env, PORT: '0', NODE_NO_WARNINGS: '1', POWERTOOLS_LOG_LEVEL: 'SILENT' }, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout!.on('data', (d) => (output += d));
    child.stderr!.on('data', (d) => (output += d));
    url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`not listening:\n${output}`)), 60_000);
      child.stdout!.on('data', () => {
        const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
        if (match) {
          clearTimeout(timer);
          resolve(match[1]);
        }
      });
    });
  }, 70_000);

  afterAll(() => {
    if (child.exitCode === null) child.kill('SIGKILL');
  });

  const post = (key: string | undefined, body: unknown) =>
    fetch(`${url}/payments`, { method: 'POST', headers: { 'content-type': 'application/json', ...(key ? { 'idempotency-key': key } : {}) }, body: JSON.stringify(body) });
  const order = { amount: 1999, currency: 'EUR', orderId: 'ord-1', items: [{ sku: 'sku-red-mug', quantity: 1 }] };

  it('creates, replays, refuses a changed request and a missing key, and serves the payment', async () => {
    const created = await post('local-api-1', order);
    const createdBody = await created.text();
    const replay = await post('local-api-1', order);
    const mismatch = await post('local-api-1', { ...order, amount: 1 });
    const missing = await post(undefined, order);
    expect(created.status).toBe(201);
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(await replay.text()).toBe(createdBody);
    expect(mismatch.status).toBe(422);
    expect(missing.status).toBe(400);
    const fetched = await fetch(`${url}${created.headers.get('location')}`);
    expect(fetched.status).toBe(200);
    expect((await fetched.json()).paymentId).toBe(JSON.parse(createdBody).paymentId);
  });

  it('stops DynamoDB Local and exits 0 on SIGTERM', async () => {
    const pid = Number(/DynamoDB Local pid (\d+)/.exec(output)?.[1]);
    child.kill('SIGTERM');
    const code = await new Promise((resolve) => child.once('exit', resolve));
    expect(code).toBe(0);
    expect(() => process.kill(pid, 0)).toThrow();
  }, 30_000);
});

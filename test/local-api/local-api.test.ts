import { execFileSync } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { matchRoute } from '../../scripts/local-api/router.js';
import {
  descendantsOf,
  isListening,
  killAll,
  npmStart,
  survivorsAfter,
  waitForOutput,
  type NpmStart,
} from './npm-start.js';

/** The server's first line, printed once it has bound its port and before its services start. */
const SERVED_AT = /payments API at (http:\/\/127\.0\.0\.1:(\d+))/;
/** Printed once DynamoDB Local and the SQS emulator are up and the routes are served. */
const LISTENING = /listening on (http:\/\/127\.0\.0\.1:\d+)/;

describe('matchRoute', () => {
  const routes = ['POST /payments', 'GET /payments/{id}', 'POST /payments/{id}/refunds'].map((routeKey) => ({
    routeKey,
    handler: async () => ({ statusCode: 200 }),
  }));

  it('captures path parameters and needs every literal segment', () => {
    expect(matchRoute(routes, 'POST', '/payments/pay_1/refunds')).toMatchObject({
      route: { routeKey: 'POST /payments/{id}/refunds' },
      pathParameters: { id: 'pay_1' },
    });
    expect(matchRoute(routes, 'GET', '/payments/pay%201')?.pathParameters).toEqual({ id: 'pay 1' });
    expect(matchRoute(routes, 'GET', '/payments')).toBeUndefined();
    expect(matchRoute(routes, 'DELETE', '/payments/pay_1')).toBeUndefined();
  });
});

describe('npm start (the local payments API)', () => {
  let run: NpmStart;
  let url: string;
  let port: number;
  let early: { readonly sentBeforeReady: boolean; readonly answer: Promise<Response> };

  beforeAll(async () => {
    run = npmStart();
    const servedAt = await waitForOutput(run, SERVED_AT);
    url = servedAt[1];
    port = Number(servedAt[2]);
    const answer = post('local-api-early', order);
    answer.catch(() => undefined); // awaited by its test; a failed start-up must not also reject unhandled
    early = { sentBeforeReady: !LISTENING.test(run.output()), answer };
    await waitForOutput(run, LISTENING);
  }, 160_000);

  afterAll(() => killAll([run.child.pid!, ...descendantsOf(run.child.pid!)]));

  const post = (key: string | undefined, body: unknown) =>
    fetch(`${url}/payments`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(key ? { 'idempotency-key': key } : {}) },
      body: JSON.stringify(body),
    });
  const order = { amount: 1999, currency: 'EUR', orderId: 'ord-1', items: [{ sku: 'sku-red-mug', quantity: 1 }] };

  it('with PORT=0, prints the URL of a port the kernel picked on its first line, before starting its services', async () => {
    // npm's own header lines start with '>'.
    const [firstLine] = run
      .output()
      .split('\n')
      .filter((line) => line.trim() !== '' && !line.startsWith('>'));
    expect(firstLine).toMatch(SERVED_AT);
    expect(port).toBeGreaterThan(0);
    expect(run.output().indexOf('payments API at')).toBeLessThan(run.output().indexOf('Starting DynamoDB Local'));
    expect(LISTENING.exec(run.output())?.[1]).toBe(url);
  });

  it('holds a request sent before its services are up and answers it once they are', async () => {
    expect(early.sentBeforeReady).toBe(true);
    expect((await early.answer).status).toBe(201);
  });

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

  it("answers a request over Lambda's 6 MB payload limit 413, as API Gateway does, without running the handler", async () => {
    const padding = 'x'.repeat(7.3 * 1024 * 1024);
    const tooLarge = await post('local-api-large', { ...order, padding });
    const retry = await post('local-api-large', order);
    expect(tooLarge.status).toBe(413);
    expect(await tooLarge.json()).toEqual({ message: 'Request Entity Too Large' });
    // The key was never reserved: the same key with a small body runs as new.
    expect(retry.status).toBe(201);
    expect(retry.headers.get('idempotent-replayed')).toBeNull();
  });

  it('hands a request just under the limit to the handler', async () => {
    const padding = 'x'.repeat(5.5 * 1024 * 1024);
    const answer = await post('local-api-under-limit', { ...order, padding });
    expect(answer.status).toBe(201);
  });

  it('stops everything it started, by PID, when npm gets SIGTERM, and exits 0', async () => {
    const started = descendantsOf(run.child.pid!);
    expect(started.length).toBeGreaterThanOrEqual(2);
    run.child.kill('SIGTERM');
    expect(await run.exited).toBe(0);
    expect(await survivorsAfter(started, 10_000)).toEqual([]);
    expect(await isListening(port)).toBe(false);
  }, 30_000);
});

describe('npm start stops what it started on every exit path', () => {
  let run: NpmStart | undefined;
  let started: number[] = [];

  afterEach(() => killAll([...(run?.child.pid ? [run.child.pid] : []), ...started]));

  it.each(['SIGINT', 'SIGHUP'] as const)(
    '%s sent to npm leaves no process and no listener behind',
    async (signal) => {
      run = npmStart();
      const port = Number((await waitForOutput(run, SERVED_AT))[2]);
      await waitForOutput(run, LISTENING);
      started = descendantsOf(run.child.pid!);
      // npm forwards SIGINT to the script but not SIGHUP: then the server notices its parent is gone.
      run.child.kill(signal);
      await run.exited;
      expect(await survivorsAfter(started, 10_000)).toEqual([]);
      expect(await isListening(port)).toBe(false);
      expect(run.output()).toMatch(/stopped DynamoDB Local/);
    },
    200_000,
  );

  it('a signal during start-up stops the DynamoDB Local that is still starting', async () => {
    run = npmStart();
    await waitForOutput(run, /Starting DynamoDB Local/);
    started = await javaBelow(run.child.pid!);
    run.child.kill('SIGTERM');
    await run.exited;
    expect(await survivorsAfter(started, 10_000)).toEqual([]);
  }, 200_000);

  it('a port already in use ends start-up with exit code 1 and a clear message, before anything else started', async () => {
    const blocker = await listening();
    try {
      const { port } = blocker.address() as AddressInfo;
      run = npmStart(port);
      expect(await run.exited).toBe(1);
      expect(run.output()).toContain(`port ${port} on 127.0.0.1 is already in use`);
      expect(run.output()).not.toContain('Starting DynamoDB Local');
    } finally {
      blocker.close();
    }
  }, 200_000);
});

/** The java process (DynamoDB Local) somewhere below `pid`, once it has been spawned. */
async function javaBelow(pid: number): Promise<number[]> {
  for (let i = 0; i < 300; i++) {
    const java = descendantsOf(pid).filter((child) => {
      try {
        return execFileSync('ps', ['-o', 'comm=', '-p', String(child)], { encoding: 'utf8' }).trim() === 'java';
      } catch {
        return false;
      }
    });
    if (java.length > 0) return [...descendantsOf(pid)];
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('DynamoDB Local was never spawned');
}

/** A server on a port the kernel picked, standing in for another program that took it. */
function listening(): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve(server));
  });
}

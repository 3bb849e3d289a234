import { idempotentFetch } from '../../src/client/index.js';
import { InvalidOptionsError, KeyInvalidError } from '../../src/core/index.js';
import { fakeTime } from './fake-time.js';
import { type Reply, type ScriptedServer, startScriptedServer } from './scripted-server.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const POST: RequestInit = { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"amount":1000}' };
const inProgress: Reply = {
  status: 409,
  headers: { 'content-type': 'application/problem+json', 'retry-after': '1' },
  body: JSON.stringify({ type: 'urn:idemkit:problem:request-in-progress', status: 409 }),
};

describe('idempotentFetch against a local server', () => {
  let server: ScriptedServer | undefined;
  const time = fakeTime();
  const instantRetry = { sleep: time.sleep, clock: time.clock };

  async function serve(...replies: Reply[]): Promise<ScriptedServer> {
    server = await startScriptedServer(replies);
    return server;
  }

  afterEach(async () => {
    await server?.close();
    server = undefined;
    time.delaysMs.length = 0;
  });

  it('sends one generated key on every attempt', async () => {
    const { url, requests } = await serve({ status: 503 }, { status: 503 }, { status: 201 });

    const response = await idempotentFetch(url, POST, { retry: instantRetry });

    expect(response.status).toBe(201);
    expect(requests).toHaveLength(3);
    const keys = new Set(requests.map((request) => request.headers['idempotency-key']));
    expect(keys.size).toBe(1);
    expect([...keys][0]).toMatch(UUID);
  });

  it('generates a new key for each logical call', async () => {
    const { url, requests } = await serve({ status: 201 });

    await idempotentFetch(url, POST);
    await idempotentFetch(url, POST);

    expect(requests[0]!.headers['idempotency-key']).not.toBe(requests[1]!.headers['idempotency-key']);
  });

  it('sends the key it is given', async () => {
    const { url, requests } = await serve({ status: 502 }, { status: 201 });

    await idempotentFetch(url, POST, { idempotencyKey: 'order-42', retry: instantRetry });

    expect(requests.map((request) => request.headers['idempotency-key'])).toEqual(['order-42', 'order-42']);
  });

  it('sends a key holding a comma as one quoted token, on every attempt', async () => {
    const { url, requests } = await serve(inProgress, { status: 201 });

    await idempotentFetch(url, POST, { idempotencyKey: 'order,42', retry: instantRetry });

    expect(requests.map((request) => request.headers['idempotency-key'])).toEqual(['"order,42"', '"order,42"']);
  });

  it('keeps a key already present in init.headers', async () => {
    const { url, requests } = await serve({ status: 201 });

    await idempotentFetch(url, { ...POST, headers: { 'Idempotency-Key': 'from-headers' } });

    expect(requests[0]!.headers['idempotency-key']).toBe('from-headers');
  });

  it('resends the same body on every attempt', async () => {
    const { url, requests } = await serve({ status: 504 }, { status: 201 });

    await idempotentFetch(url, POST, { retry: instantRetry });

    expect(requests.map((request) => request.body)).toEqual(['{"amount":1000}', '{"amount":1000}']);
  });

  it('retries a 409 request-in-progress after its Retry-After and returns the replay', async () => {
    const { url, requests } = await serve(inProgress, { status: 201, headers: { 'idempotent-replayed': 'true' } });

    const response = await idempotentFetch(url, POST, { retry: { ...instantRetry, random: () => 0 } });

    expect(response.headers.get('idempotent-replayed')).toBe('true');
    expect(requests).toHaveLength(2);
    expect(time.delaysMs).toEqual([1_000]);
  });

  it.each([400, 401, 403, 422])('returns a %i without retrying', async (status) => {
    const { url, requests } = await serve({ status }, { status: 201 });

    const response = await idempotentFetch(url, POST, { retry: instantRetry });

    expect(response.status).toBe(status);
    expect(requests).toHaveLength(1);
  });

  it('returns a 409 of another problem type without retrying', async () => {
    const needsReview: Reply = {
      status: 409,
      headers: { 'content-type': 'application/problem+json' },
      body: JSON.stringify({ type: 'urn:idemkit:problem:needs-review' }),
    };
    const { url, requests } = await serve(needsReview, { status: 201 });

    const response = await idempotentFetch(url, POST, { retry: instantRetry });

    expect(response.status).toBe(409);
    expect(requests).toHaveLength(1);
  });

  it('retries a connection reset', async () => {
    const { url, requests } = await serve('reset', { status: 201 });

    const response = await idempotentFetch(url, POST, { retry: instantRetry });

    expect(response.status).toBe(201);
    expect(requests).toHaveLength(2);
  });

  it('retries an attempt that outlives attemptTimeoutMs', async () => {
    const { url, requests } = await serve('hang', { status: 201 });

    const response = await idempotentFetch(url, POST, { attemptTimeoutMs: 200, retry: instantRetry });

    expect(response.status).toBe(201);
    expect(requests).toHaveLength(2);
  });

  it('rejects with the abort reason while a request hangs', async () => {
    const { url } = await serve('hang');
    const controller = new AbortController();
    const reason = new Error('navigated away');

    const call = idempotentFetch(url, { ...POST, signal: controller.signal });
    setTimeout(() => controller.abort(reason), 50);

    await expect(call).rejects.toBe(reason);
  });

  it('refuses a stream body before sending anything', async () => {
    const { url, requests } = await serve({ status: 201 });
    const body = new ReadableStream({ start: (controller) => controller.close() });

    const call = idempotentFetch(url, { method: 'POST', body, duplex: 'half' } as RequestInit);

    await expect(call).rejects.toThrow(InvalidOptionsError);
    expect(requests).toHaveLength(0);
  });

  it('refuses a key that differs from the one in init.headers', async () => {
    const { url, requests } = await serve({ status: 201 });

    const call = idempotentFetch(url, { headers: { 'Idempotency-Key': 'a' } }, { idempotencyKey: 'b' });

    await expect(call).rejects.toThrow(InvalidOptionsError);
    expect(requests).toHaveLength(0);
  });

  it('refuses a malformed key before sending anything', async () => {
    const { url, requests } = await serve({ status: 201 });

    const call = idempotentFetch(url, POST, { idempotencyKey: 'has space' });

    await expect(call).rejects.toThrow(KeyInvalidError);
    expect(requests).toHaveLength(0);
  });

  it('refuses an unknown option, naming it', async () => {
    const { url } = await serve({ status: 201 });

    const call = idempotentFetch(url, POST, { retries: 3 } as never);

    await expect(call).rejects.toThrow("'retries'");
  });
});

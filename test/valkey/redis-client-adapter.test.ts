import { randomUUID } from 'node:crypto';
import { createClient } from '@redis/client';
import { makeIdempotent } from '../../src/index.js';
import { ValkeyJournal, type ValkeyClient } from '../../src/entries/valkey.js';
import { startValkeyServer, type ValkeyServer } from '../support/valkey.js';

/*
 * The adapter docs/valkey.md shows for a client other than iovalkey/ioredis (`@redis/client`), as
 * printed there, on a real server: the journal runs on it, and its WAIT works.
 */
let server: ValkeyServer;
const connect = (port: number) => createClient({ url: `redis://127.0.0.1:${port}` }).connect();
let redis: Awaited<ReturnType<typeof connect>>;
beforeAll(async () => {
  server = await startValkeyServer();
  redis = await connect(server.port);
});
afterAll(async () => {
  await redis?.quit();
  await server?.stop();
});

function adapter(): ValkeyClient {
  return {
    evalsha: (sha1, numKeys, ...rest) => redis.sendCommand(['EVALSHA', sha1, String(numKeys), ...rest]),
    eval: (script, numKeys, ...rest) => redis.sendCommand(['EVAL', script, String(numKeys), ...rest]),
    info: async (section) => String(await redis.sendCommand(['INFO', section])),
    wait: async (replicas, timeoutMs) => Number(await redis.sendCommand(['WAIT', String(replicas), String(timeoutMs)])),
  };
}

it('runs a guarded function once and replays it, through the @redis/client adapter', async () => {
  const messages: string[] = [];
  const journal = new ValkeyJournal({
    client: adapter(),
    logger: { warn: (message) => void messages.push(message) },
    waitForReplicas: { replicas: 0, timeoutMs: 100 },
  });
  let runs = 0;
  const charge = makeIdempotent(async (input: { id: string }) => ({ charged: input.id, run: ++runs }), {
    journal,
    operation: 'adapter',
    key: (input) => input.id,
  });
  const id = randomUUID();

  const first = await charge({ id });
  const replay = await charge({ id });

  expect(replay).toEqual(first);
  expect(runs).toBe(1);
  expect(await journal.evictionPolicy()).toEqual({ policy: 'noeviction', mayEvict: false });
  expect(messages).toEqual([]);
});

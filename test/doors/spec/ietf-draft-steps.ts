import { DEFAULT_PROBLEM_TYPE_PREFIX } from '../../../src/http/http-response.js';
import type { FeatureWorld, StepTable } from './feature-world.js';

/**
 * The step vocabulary of `ietf-draft.feature`: idemkit's own restatement of the IETF
 * Idempotency-Key draft's behaviours, as the Express door answers them. A step names its method,
 * path, key and JSON body in full, so a scenario reads without a hidden current key.
 */

/** The request part of a send step: `POST /orders`. */
const REQUEST = '([A-Z]+) (/\\S*)';

/** A send, as an action (`the client sends`) or as what happened before (`the client sent`). */
const SEND = '(?:the client sends|the client sent)';

/** Sends a request and keeps its answer as the last one. */
async function sendAndKeep(world: FeatureWorld, method: string, path: string, body: string | undefined, key?: string) {
  world.last = await world.send(method, path, body === undefined ? undefined : JSON.parse(body), key);
}

export const IETF_DRAFT_STEPS: StepTable = [
  // The server starts with the first request, so a scenario's settings before it take effect.
  [/^an Express app with idemkit guarding \/orders, on a fresh DynamoDB Local journal$/, () => undefined],
  [/^the guard replays an outcome for (\d+) seconds$/, (world, seconds) => void (world.ttlSeconds = Number(seconds))],
  [/^the journal cannot be reached$/, (world) => world.loseJournal()],
  [
    new RegExp(`^${SEND} ${REQUEST} with key "([^"]*)" and body (\\{.*\\})$`),
    (world, method, path, key, body) => sendAndKeep(world, method!, path!, body, key),
  ],
  // Whatever is between the backticks is the header value as sent: nothing between them sends the header empty.
  [
    new RegExp(`^${SEND} ${REQUEST} with the key header \`([^\`]*)\` and body (\\{.*\\})$`),
    (world, method, path, header, body) => sendAndKeep(world, method!, path!, body, header),
  ],
  [
    new RegExp(`^${SEND} ${REQUEST} with a key of (\\d+) characters and body (\\{.*\\})$`),
    (world, method, path, length, body) => sendAndKeep(world, method!, path!, body, 'k'.repeat(Number(length))),
  ],
  [
    new RegExp(`^${SEND} ${REQUEST} without a key and body (\\{.*\\})$`),
    (world, method, path, body) => sendAndKeep(world, method!, path!, body, undefined),
  ],
  [
    new RegExp(`^${SEND} ${REQUEST} without a key$`),
    (world, method, path) => sendAndKeep(world, method!, path!, undefined, undefined),
  ],
  [
    new RegExp(`^${REQUEST} with key "([^"]*)" and body (\\{.*\\}) is still running$`),
    (world, method, path, key, body) => world.hold(method!, path!, JSON.parse(body!), key!),
  ],
  [/^the running request finishes$/, (world) => world.finishHeld()],
  [/^(\d+) seconds pass$/, (world, seconds) => void (world.clockAheadMs += Number(seconds) * 1000)],
  [
    /^the answer is 200 from run (\d+) of the handler$/,
    (world, run) => {
      const { status, json } = world.received();
      expect({ status, order: json?.order }).toEqual({ status: 200, order: Number(run) });
    },
  ],
  [
    /^the answer is marked as a replay$/,
    (world) => expect(world.received().headers.get('idempotent-replayed')).toBe('true'),
  ],
  [
    /^the answer is not marked as a replay$/,
    (world) => expect(world.received().headers.get('idempotent-replayed')).toBeNull(),
  ],
  [
    /^the answer is the problem "([a-z-]+)" with status (\d+)$/,
    (world, code, status) => {
      const { status: received, headers, json } = world.received();
      expect({ status: received, contentType: headers.get('content-type'), type: json?.type }).toEqual({
        status: Number(status),
        contentType: expect.stringContaining('application/problem+json'),
        type: `${DEFAULT_PROBLEM_TYPE_PREFIX}${code}`,
      });
      expect(json).toEqual(expect.objectContaining({ title: expect.any(String), detail: expect.any(String) }));
    },
  ],
  [
    /^the answer asks to retry after (\d+) seconds?$/,
    (world, seconds) => expect(world.received().headers.get('retry-after')).toBe(seconds),
  ],
  [/^the answer does not ask to retry$/, (world) => expect(world.received().headers.get('retry-after')).toBeNull()],
  [/^the handler has run (\d+) times?$/, (world, runs) => expect(world.runs).toBe(Number(runs))],
  [
    /^the journal holds a completed record of key "([^"]*)" for ([A-Z]+ \/\S*) that answered (\d+)$/,
    async (world, key, operation, status) => {
      const [record, ...more] = await world.recordsOf(key!);
      expect({ status: record?.status, more: more.length }).toEqual({ status: 'COMPLETED', more: 0 });
      expect((await world.storedResponse(operation!, key!)).statusCode).toBe(Number(status));
    },
  ],
  [
    /^the journal holds no record of key "([^"]*)"$/,
    async (world, key) => expect(await world.recordsOf(key!)).toEqual([]),
  ],
];

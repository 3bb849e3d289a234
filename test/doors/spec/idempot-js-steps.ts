import { FeatureWorld, type StepTable } from './feature-world.js';

/**
 * The step vocabulary of the idempot-js project's Gherkin suite for the IETF Idempotency-Key draft,
 * written for idemkit's Express door: each step means what that feature says. The feature itself
 * is not in this repository; the test reads it from a checkout named by `IDEMPOT_JS_FEATURE`
 * (docs/express.md). Its app is `/api`, creating an order per request with a key; the world's
 * scenario key is set by the `an Idempotency-Key …` steps.
 */

/** The feature's record states, by meaning: idemkit's journal names them in capitals. */
const RECORD_STATUS: Record<string, string> = {
  complete: 'COMPLETED',
  processing: 'IN_PROGRESS',
};

function requireKey(world: FeatureWorld): string {
  if (world.key === undefined) throw new Error('No Idempotency-Key given');
  return world.key;
}

/** A Cucumber expression's `{string}`: text in double quotes or in single quotes (one of two groups matches). */
const S = `(?:"([^"]*)"|'([^']*)')`;

/** Each step of the feature, by its text. */
export const IDEMPOT_JS_STEPS: StepTable = [
  // `/api` serves every method; the server starts with the first request, on the journal of that moment.
  [new RegExp(`^an? (\\w+) endpoint at ${S} that creates an order$`), (world) => world.restart()],
  // Each scenario has a journal table of its own, created empty.
  [/^the SQLite store is clean$/, () => undefined],
  [/^the idempotency store is unavailable$/, (world) => world.loseJournal()],
  [new RegExp(`^an Idempotency-Key ${S}$`), (world, key) => (world.key = key)],
  [/^an empty Idempotency-Key header$/, (world) => (world.key = '')],
  [/^an Idempotency-Key of (\d+) characters$/, (world, length) => (world.key = 'a'.repeat(Number(length)))],
  // The key is being processed for real: a request with the feature's body, held inside the handler.
  [
    new RegExp(`^the key ${S} is currently being processed$`),
    (world, key) => world.hold('POST', '/api', { foo: 'bar' }, key!),
  ],
  [
    new RegExp(`^I previously sent a POST request to ${S} with body ${S}$`),
    async (world, path, body) => void (await world.send('POST', path!, JSON.parse(body!))),
  ],
  [
    new RegExp(`^I send a POST request to ${S} without an Idempotency-Key header$`),
    async (world, path) => void (world.last = await world.send('POST', path!, { foo: 'bar' }, undefined)),
  ],
  [
    new RegExp(`^I send a (\\w+) request to ${S} with body ${S}$`),
    async (world, method, path, body) => void (world.last = await world.send(method!, path!, JSON.parse(body!))),
  ],
  [
    new RegExp(`^I send a POST request to ${S} with empty body$`),
    async (world, path) => void (world.last = await world.send('POST', path!, {})),
  ],
  [
    new RegExp(`^I send a (\\w+) request to ${S}$`),
    async (world, method, path) => void (world.last = await world.send(method!, path!, undefined)),
  ],
  [/^the response status should be (\d+)$/, (world, status) => expect(world.received().status).toBe(Number(status))],
  [
    new RegExp(`^the response content-type should be ${S}$`),
    (world, type) => expect(world.received().headers.get('content-type') ?? '').toContain(type),
  ],
  [
    new RegExp(`^the response should have header ${S} with value ${S}$`),
    (world, name, value) => expect(world.received().headers.get(name!)).toBe(value),
  ],
  [
    new RegExp(`^the response body should contain ${S}$`),
    (world, text) => {
      const { json, text: raw } = world.received();
      expect(json === undefined ? raw : JSON.stringify(json)).toContain(text);
    },
  ],
  [
    new RegExp(`^the response body instance field should match pattern ${S}$`),
    (world, pattern) => expect(String(world.received().json?.instance ?? '')).toContain(pattern),
  ],
  [
    /^the response retryable field should be (\w+)$/,
    (world, value) => expect(world.received().json?.retryable).toBe(value === 'true'),
  ],
  [
    new RegExp(`^the response idempotency_key field should be ${S}$`),
    (world, key) => expect(world.received().json?.idempotency_key).toBe(key),
  ],
  [
    new RegExp(`^an idempotency record should exist with key ${S}$`),
    async (world, key) => expect((await world.recordsOf(key!)).length).toBeGreaterThan(0),
  ],
  [
    new RegExp(`^the idempotency record status should be ${S}$`),
    async (world, status) => {
      const [record] = await world.recordsOf(requireKey(world));
      expect(record?.status).toBe(RECORD_STATUS[status!] ?? status);
    },
  ],
  [
    /^the idempotency record response status should be (\d+)$/,
    async (world, status) =>
      expect((await world.storedResponse('POST /api', requireKey(world))).statusCode).toBe(Number(status)),
  ],
  [
    new RegExp(`^the idempotency record response body should contain ${S}$`),
    async (world, text) => expect((await world.storedResponse('POST /api', requireKey(world))).body).toContain(text),
  ],
  [
    new RegExp(`^(\\d+) idempotency records should exist with key ${S}$`),
    async (world, count, key) => expect(await world.recordsOf(key!)).toHaveLength(Number(count)),
  ],
  [/^(\d+) orders should exist in the database$/, (world, count) => expect(world.orders).toBe(Number(count))],
];

import { randomUUID } from 'node:crypto';
import { InvalidOptionsError, makeIdempotent, MemoryJournal, RecordStatus } from '../../src/index.js';
import { ENTRY_POINTS, pkOf, StagedOnlyWorld } from './support/staged-only-drivers.js';
import { fromPowertools } from '../../src/entries/migration.js';

const newKey = () => `k-${randomUUID()}`;
const ONE_COMMIT = ['TransactWriteItems'];

describe.each(ENTRY_POINTS)("effects: 'staged-only' through %s, on DynamoDB Local", (entryPoint) => {
  let world: StagedOnlyWorld;
  beforeAll(async () => {
    world = await StagedOnlyWorld.create();
  });

  it('commits a new key, its write and its outcome in one DynamoDB call', async () => {
    const key = newKey();

    const answer = await world.container(entryPoint).send({ key, amount: 100 });

    expect(answer).toMatchObject({ status: 'new', commands: ONE_COMMIT, code: undefined });
    if (entryPoint === 'http') expect(answer).toMatchObject({ httpStatus: 201, replayed: false });
    expect(await world.entries(key)).toBe(1);
    expect(await world.journal().get(pkOf(entryPoint, key))).toMatchObject({
      status: RecordStatus.completed,
      attempt: 1,
    });
  });

  it('answers a replay with the stored outcome in one call: the handler runs, nothing of its run commits', async () => {
    const key = newKey();
    const first = await world.container(entryPoint).send({ key, amount: 100 });

    const replay = await world.container(entryPoint).send({ key, amount: 100 });

    expect(replay).toMatchObject({ status: 'replay', commands: ONE_COMMIT, code: undefined });
    if (entryPoint !== 'sqs') expect(replay.result).toEqual(first.result);
    if (entryPoint === 'http') expect(replay).toMatchObject({ httpStatus: 201, replayed: true, body: first.body });
    expect(world.runs.get(key)).toBe(2);
    expect(await world.entries(key)).toBe(1);
  });

  it('refuses a changed request with the key (422 / PayloadMismatchError) in one call, the record untouched', async () => {
    const key = newKey();
    await world.container(entryPoint).send({ key, amount: 100 });

    const changed = await world.container(entryPoint).send({ key, amount: 999 });

    expect(changed).toMatchObject({ status: 'mismatch', code: 'idempotency-key-reused', commands: ONE_COMMIT });
    if (entryPoint === 'http') expect(changed.httpStatus).toBe(422);
    expect(await world.entries(key)).toBe(1);
    expect((await world.journal().get(pkOf(entryPoint, key)))?.fingerprint).toBeDefined();
  });

  it('answers 409 in progress while a leased attempt holds a live lease, committing nothing of its own', async () => {
    const key = newKey();
    let entered!: () => void;
    const inside = new Promise<void>((resolve) => (entered = resolve));
    let release!: () => void;
    const hold = { entered, release: new Promise<void>((resolve) => (release = resolve)) };
    const leased = world.container(entryPoint, { hold }, { guard: { effects: 'any' } }).send({ key, amount: 100 });
    await inside;

    const duplicate = await world.container(entryPoint).send({ key, amount: 100 });
    release();
    await leased;

    expect(duplicate).toMatchObject({ status: 'in_progress', code: 'request-in-progress', commands: ONE_COMMIT });
    if (entryPoint === 'http') expect(duplicate.httpStatus).toBe(409);
    expect(world.runs.get(key)).toBe(2);
    expect(await world.entries(key)).toBe(1);
  });

  it('replays a debit whose balance check would now fail: the record decides, not the staged write', async () => {
    const key = newKey();
    const account = `acct-${key}`;
    await world.openAccount(account, 100);
    await world.container(entryPoint, { debit: true }).send({ key, amount: 100, account });

    const replay = await world.container(entryPoint, { debit: true }).send({ key, amount: 100, account });

    expect(replay).toMatchObject({ status: 'replay', code: undefined, commands: ONE_COMMIT });
    expect(await world.balance(account)).toBe(0);
    expect(await world.entries(key)).toBe(1);
  });

  it('answers 409 write-conflict when a staged write’s own condition fails, and commits nothing', async () => {
    const key = newKey();

    const answer = await world.container(entryPoint, { requireMissingRow: true }).send({ key, amount: 100 });

    expect(answer).toMatchObject({ status: 'conflict', code: 'write-conflict', commands: ONE_COMMIT });
    if (entryPoint === 'http') expect(answer.httpStatus).toBe(409);
    expect(await world.entries(key)).toBe(0);
    expect(await world.journal().get(pkOf(entryPoint, key))).toBeUndefined();
  });

  it('treats a staged write DynamoDB refuses (a missing table) as the handler’s failure: nothing committed, a retry runs again', async () => {
    const key = newKey();

    const failed = await world
      .container(entryPoint, { writeToMissingTable: true })
      .send({ key, amount: 100 })
      .catch((error: Error) => ({ thrown: error.name }));
    const retry = await world.container(entryPoint).send({ key, amount: 100 });

    // DynamoDB does not say which table is missing: one read of the journal's own table tells it is not the journal.
    expect(failed).toMatchObject({
      status: 'released',
      code: 'staged-write-failed',
      commands: ['TransactWriteItems', 'GetItem'],
    });
    if (entryPoint === 'http') expect(failed).toMatchObject({ httpStatus: 500 });
    expect(retry.status).toBe('new');
    expect(world.runs.get(key)).toBe(2);
    expect(await world.entries(key)).toBe(1);
  });

  it('answers 409 uniqueness-conflict when the claim is held, and commits nothing', async () => {
    const order = `order-${randomUUID()}`;
    await world.container(entryPoint, { claim: order }).send({ key: newKey(), amount: 100 });
    const key = newKey();

    const answer = await world.container(entryPoint, { claim: order }).send({ key, amount: 100 });

    expect(answer).toMatchObject({ status: 'conflict', code: 'uniqueness-conflict', commands: ONE_COMMIT });
    expect(await world.entries(key)).toBe(0);
    expect(await world.journal().get(pkOf(entryPoint, key))).toBeUndefined();
  });

  it('writes nothing when the handler throws, and the retry runs and commits', async () => {
    const key = newKey();

    const failed = await world
      .container(entryPoint, { throws: true })
      .send({ key, amount: 100 })
      .catch((error: Error) => ({ thrown: error.message }));
    const retry = await world.container(entryPoint).send({ key, amount: 100 });

    if (entryPoint === 'sqs') expect(failed).toMatchObject({ status: 'released', commands: [] });
    else expect(failed).toEqual({ thrown: 'downstream validation failed' });
    expect(retry.status).toBe('new');
    expect(world.runs.get(key)).toBe(2);
    expect(await world.entries(key)).toBe(1);
  });

  it('rejects beginEffect, recordEvidence and heartbeat with StagedOnlyError', async () => {
    const key = newKey();

    const answer = await world.container(entryPoint, { leaseOps: true }).send({ key, amount: 100 });
    const record = await world.journal().get(pkOf(entryPoint, key));

    if (entryPoint !== 'sqs') expect(answer.result?.leaseOps).toEqual(['staged-only', 'staged-only', 'staged-only']);
    expect(answer.status).toBe('new');
    expect(record).toMatchObject({ effectStarted: false, evidence: {} });
  });

  it('runs every concurrent duplicate, commits exactly one, and answers all with the winner’s outcome (no 409)', async () => {
    const key = newKey();
    const containers = Array.from({ length: 8 }, () => world.container(entryPoint));

    const answers = await Promise.all(containers.map((container) => container.send({ key, amount: 100 })));

    expect(world.runs.get(key)).toBe(8);
    expect(await world.entries(key)).toBe(1);
    expect(answers.map((a) => a.status).sort()).toEqual(['new', ...Array(7).fill('replay')]);
    expect(answers.every((a) => a.code === undefined && a.commands.length === 1)).toBe(true);
    if (entryPoint !== 'sqs') expect(new Set(answers.map((a) => JSON.stringify(a.result))).size).toBe(1);
    if (entryPoint === 'http') expect(answers.every((a) => a.httpStatus === 201)).toBe(true);
  });

  it('replays without a DynamoDB call, and without running the handler, from a warm container’s local cache', async () => {
    const key = newKey();
    const warm = world.container(entryPoint, {}, { guard: { localCache: { maxItems: 10 } } });
    await warm.send({ key, amount: 100 });

    const replay = await warm.send({ key, amount: 100 });

    expect(replay).toMatchObject({ status: 'replay', commands: [] });
    expect(world.runs.get(key)).toBe(1);
  });

  it('leaves another payload to the journal when the local cache holds the key (a cache only replays)', async () => {
    const key = newKey();
    const warm = world.container(entryPoint, {}, { guard: { localCache: { maxItems: 10 } } });
    await warm.send({ key, amount: 100 });

    const changed = await warm.send({ key, amount: 5 });

    expect(changed).toMatchObject({
      status: 'mismatch',
      code: 'idempotency-key-reused',
      commands: ['TransactWriteItems'],
    });
  });

  it('commits over a record past its expiresAt in one call (a transaction cannot say what it replaced: logged new)', async () => {
    const key = newKey();
    let nowEpochMs = Date.now();
    const clock = () => nowEpochMs;
    await world.container(entryPoint, {}, { clock, guard: { ttlSeconds: 1 } }).send({ key, amount: 100 });
    nowEpochMs += 1_100;

    const reuse = await world.container(entryPoint, {}, { clock, guard: { ttlSeconds: 1 } }).send({ key, amount: 100 });

    expect(reuse).toMatchObject({ status: 'new', code: undefined, commands: ONE_COMMIT });
    expect(await world.entries(key)).toBe(2);
  });

  it('commits over a leased attempt that vanished before any effect; that attempt’s late completion then answers with this outcome', async () => {
    const key = newKey();
    let entered!: () => void;
    const inside = new Promise<void>((resolve) => (entered = resolve));
    let release!: () => void;
    const hold = { entered, release: new Promise<void>((resolve) => (release = resolve)) };
    let nowEpochMs = Date.now();
    const clock = () => nowEpochMs;
    const stalled = world
      .container(entryPoint, { hold }, { clock, guard: { effects: 'any', leaseMs: 200 } })
      .send({ key, amount: 100 });
    await inside;
    nowEpochMs += 300;

    const staged = await world.container(entryPoint, {}, { clock }).send({ key, amount: 100 });
    release();
    const late = await stalled;

    expect(staged).toMatchObject({ status: 'new', code: undefined, commands: ONE_COMMIT });
    expect(late.status).toBe('lease_lost');
    if (entryPoint !== 'sqs') expect(late.result).toEqual(staged.result);
    expect(await world.entries(key)).toBe(1);
  });

  it('is replayed by a container on the leased protocol in one call', async () => {
    const key = newKey();
    const first = await world.container(entryPoint).send({ key, amount: 100 });

    const leased = await world.container(entryPoint, {}, { guard: { effects: 'any' } }).send({ key, amount: 100 });

    expect(leased).toMatchObject({ status: 'replay', commands: ['PutItem'] });
    if (entryPoint !== 'sqs') expect(leased.result).toEqual(first.result);
    expect(world.runs.get(key)).toBe(1);
  });
});

describe.each(['http', 'function'] as const)(
  "effects: 'staged-only' outcomes through %s, on DynamoDB Local",
  (entryPoint) => {
    let world: StagedOnlyWorld;
    beforeAll(async () => {
      world = await StagedOnlyWorld.create();
    });

    it('commits a large outcome in chunks inside the one transaction and replays it byte for byte (one call more)', async () => {
      const key = newKey();
      const first = await world.container(entryPoint, { blobBytes: 900 * 1024 }).send({ key, amount: 100 });

      const replay = await world.container(entryPoint, { blobBytes: 10 }).send({ key, amount: 100 });

      expect(first).toMatchObject({ status: 'new', commands: ONE_COMMIT });
      expect(replay).toMatchObject({ status: 'replay', commands: ['TransactWriteItems', 'BatchGetItem'] });
      expect(replay.result).toEqual(first.result);
      if (entryPoint === 'http') expect(replay.body).toBe(first.body);
    });

    it('commits the writes of an outcome past the transaction’s limits; the first caller gets it, later ones response-too-large', async () => {
      const key = newKey();
      const first = await world.container(entryPoint, { blobBytes: 6_000_000 }).send({ key, amount: 100 });

      const later = await world.container(entryPoint).send({ key, amount: 100 });

      expect(first).toMatchObject({ status: 'new', commands: ONE_COMMIT });
      expect((first.result?.blob as string).length).toBeGreaterThanOrEqual(6_000_000);
      expect(later).toMatchObject({ code: 'response-too-large', commands: ONE_COMMIT });
      if (entryPoint === 'http') expect(later.httpStatus).toBe(500);
      expect(await world.entries(key)).toBe(1);
      expect(world.runs.get(key)).toBe(2);
    });
  },
);

describe("effects: 'staged-only' answers only the HTTP middleware gives, on DynamoDB Local", () => {
  let world: StagedOnlyWorld;
  beforeAll(async () => {
    world = await StagedOnlyWorld.create();
  });

  it.each([500, 503, 408, 429])('commits and writes nothing for a %i, and a retry runs again', async (status) => {
    const key = newKey();

    const answer = await world.container('http', { status }).send({ key, amount: 100 });
    const retry = await world.container('http').send({ key, amount: 100 });

    expect(answer).toMatchObject({ httpStatus: status, status: 'released', commands: [] });
    expect(retry).toMatchObject({ httpStatus: 201, status: 'new' });
    expect(await world.entries(key)).toBe(1);
  });

  it('stores a deterministic 4xx with its writes and replays it', async () => {
    const key = newKey();

    const answer = await world.container('http', { status: 400 }).send({ key, amount: 100 });
    const replay = await world.container('http', { status: 201 }).send({ key, amount: 100 });

    expect(answer).toMatchObject({ httpStatus: 400, status: 'new', commands: ONE_COMMIT });
    expect(replay).toMatchObject({ httpStatus: 400, replayed: true, body: answer.body });
    expect(await world.entries(key)).toBe(1);
  });
});

describe("the 'effects' option", () => {
  it.each([
    ['an unknown mode', { effects: 'some' }, "'effects' must be 'any' or 'staged-only'"],
    [
      'a recover hook, which no staged-only attempt could ask',
      { effects: 'staged-only', recover: async () => ({ outcome: 'rerun' }) },
      "'recover' does not apply",
    ],
    [
      'a migration, whose lookup runs when a key is reserved',
      {
        effects: 'staged-only',
        migrateFrom: fromPowertools({ tableName: 'powertools-table', keyPrefix: 'fn', eventKeyJmesPath: 'id' }),
      },
      "'migrateFrom' does not apply",
    ],
  ])('refuses %s when the guard is created', (_name, options, message) => {
    const create = () =>
      makeIdempotent(async () => 1, {
        journal: new MemoryJournal(),
        operation: 'op',
        key: () => 'k',
        ...(options as object),
      });
    expect(create).toThrow(InvalidOptionsError);
    expect(create).toThrow(message);
  });
});

import { randomBytes, randomUUID } from 'node:crypto';
import { DynamoDBJournal, InvalidOptionsError, RecordStatus } from '../../src/index.js';
import { countCalls, createJournalTable, localClient } from '../support/dynamodb.js';

const TTL_SECONDS = 60;
const LEASE_MS = 1_000;

async function readFirstJournal(clock: () => number = Date.now) {
  const client = localClient();
  const tableName = await createJournalTable(client, 'read-first');
  const calls = countCalls(client);
  const journal = new DynamoDBJournal({ tableName, client, clock, reservation: 'read-first' });
  return { client, tableName, calls, journal };
}

function request(pk: string, fingerprint = 'f') {
  return { pk, fingerprint, leaseMs: LEASE_MS, ttlSeconds: TTL_SECONDS };
}

describe("DynamoDBJournal reservation: 'read-first'", () => {
  it('claims a new key with a consistent read, then the conditional put', async () => {
    const { journal, calls } = await readFirstJournal();
    const pk = `req#-#op#${randomUUID()}`;

    const result = await journal.reserve(request(pk));

    expect(result).toMatchObject({
      reserved: true,
      replacedExpired: false,
      record: { status: RecordStatus.inProgress },
    });
    expect(Object.fromEntries(calls.byCommand)).toEqual({ GetItemCommand: 1, PutItemCommand: 1 });
  });

  it('replays a completed key with one read and no write', async () => {
    const { journal, calls } = await readFirstJournal();
    const pk = `req#-#op#${randomUUID()}`;
    const first = await journal.reserve(request(pk));
    if (!first.reserved) throw new Error('expected a reservation');
    await journal.complete({
      pk,
      leaseToken: first.record.leaseToken,
      response: { statusCode: 201, body: 'done' },
      ttlSeconds: TTL_SECONDS,
    });
    calls.reset();

    const replay = await journal.reserve(request(pk));

    expect(replay).toMatchObject({
      reserved: false,
      record: { status: RecordStatus.completed, response: { value: { statusCode: 201, body: 'done' } } },
    });
    expect(Object.fromEntries(calls.byCommand)).toEqual({ GetItemCommand: 1 });
  });

  it('replays a chunked response found by the read', async () => {
    const { journal } = await readFirstJournal();
    const pk = `req#-#op#${randomUUID()}`;
    const first = await journal.reserve(request(pk));
    if (!first.reserved) throw new Error('expected a reservation');
    // Random text does not compress: it cannot fit in the record item and is split into chunks.
    const body = randomBytes(600_000).toString('base64');
    await journal.complete({ pk, leaseToken: first.record.leaseToken, response: { body }, ttlSeconds: TTL_SECONDS });

    const replay = await journal.reserve(request(pk));

    expect(replay.reserved).toBe(false);
    expect(replay.record.response).toEqual({ value: { body } });
  });

  it('refuses a key held under a live lease without writing, and returns the holder', async () => {
    const { journal, calls } = await readFirstJournal();
    const pk = `req#-#op#${randomUUID()}`;
    const first = await journal.reserve(request(pk));
    if (!first.reserved) throw new Error('expected a reservation');
    calls.reset();

    const duplicate = await journal.reserve(request(pk));

    expect(duplicate).toMatchObject({
      reserved: false,
      record: { status: RecordStatus.inProgress, leaseToken: first.record.leaseToken },
    });
    expect(Object.fromEntries(calls.byCommand)).toEqual({ GetItemCommand: 1 });
  });

  it('returns the stored record for another fingerprint, with no write', async () => {
    const { journal, calls } = await readFirstJournal();
    const pk = `req#-#op#${randomUUID()}`;
    const first = await journal.reserve(request(pk, 'first'));
    if (!first.reserved) throw new Error('expected a reservation');
    await journal.complete({ pk, leaseToken: first.record.leaseToken, response: 'stored', ttlSeconds: TTL_SECONDS });
    calls.reset();

    const other = await journal.reserve(request(pk, 'second'));

    expect(other).toMatchObject({ reserved: false, record: { fingerprint: 'first', status: RecordStatus.completed } });
    expect(Object.fromEntries(calls.byCommand)).toEqual({ GetItemCommand: 1 });
  });

  it('claims over a record past its expiry through the conditional put', async () => {
    let now = Date.now();
    const { journal, calls } = await readFirstJournal(() => now);
    const pk = `req#-#op#${randomUUID()}`;
    const first = await journal.reserve(request(pk));
    if (!first.reserved) throw new Error('expected a reservation');
    await journal.complete({ pk, leaseToken: first.record.leaseToken, response: 'old', ttlSeconds: TTL_SECONDS });
    now += (TTL_SECONDS + 1) * 1000;
    calls.reset();

    const again = await journal.reserve(request(pk));

    expect(again).toMatchObject({ reserved: true, replacedExpired: true });
    expect(again.record.leaseToken).not.toBe(first.record.leaseToken);
    expect(Object.fromEntries(calls.byCommand)).toEqual({ GetItemCommand: 1, PutItemCommand: 1 });
  });

  it('lets exactly one of two callers that both read a miss claim the key; the other meets its record', async () => {
    const { client, tableName } = await readFirstJournal();
    const pk = `req#-#op#${randomUUID()}`;
    // Both reads answer before either put is sent: each caller saw the key absent.
    let readsAnswered = 0;
    let bothRead!: () => void;
    const bothReadPromise = new Promise<void>((resolve) => (bothRead = resolve));
    client.middlewareStack.add(
      (next, context) => async (args) => {
        const out = await next(args);
        if (context.commandName === 'GetItemCommand' && ++readsAnswered === 2) bothRead();
        if (context.commandName === 'GetItemCommand') await bothReadPromise;
        return out;
      },
      { step: 'initialize', name: 'holdReadsUntilBothAnswered' },
    );
    const a = new DynamoDBJournal({ tableName, client, reservation: 'read-first' });
    const b = new DynamoDBJournal({ tableName, client, reservation: 'read-first' });

    const results = await Promise.all([a.reserve(request(pk)), b.reserve(request(pk))]);

    const winners = results.filter((r) => r.reserved);
    const losers = results.filter((r) => !r.reserved);
    expect(winners).toHaveLength(1);
    expect(losers).toHaveLength(1);
    expect(losers[0].record).toMatchObject({
      status: RecordStatus.inProgress,
      leaseToken: winners[0].record.leaseToken,
    });
  });

  it('keeps one winner among many concurrent callers on a new key', async () => {
    const { tableName, client } = await readFirstJournal();
    const pk = `req#-#op#${randomUUID()}`;
    const journals = Array.from(
      { length: 20 },
      () => new DynamoDBJournal({ tableName, client, reservation: 'read-first' }),
    );

    const results = await Promise.all(journals.map((journal) => journal.reserve(request(pk))));

    expect(results.filter((r) => r.reserved)).toHaveLength(1);
  });

  it('rejects a reservation shape it does not know, naming the option', () => {
    expect(() => new DynamoDBJournal({ tableName: 'journal', reservation: 'get-first' as 'read-first' })).toThrow(
      InvalidOptionsError,
    );
    expect(() => new DynamoDBJournal({ tableName: 'journal', reservation: 'get-first' as 'read-first' })).toThrow(
      /'reservation'/,
    );
  });

  it("defaults to 'put-first': one conditional put and no read", async () => {
    const client = localClient();
    const tableName = await createJournalTable(client, 'put-first');
    const calls = countCalls(client);
    const journal = new DynamoDBJournal({ tableName, client });

    await journal.reserve(request(`req#-#op#${randomUUID()}`));

    expect(journal.reservation).toBe('put-first');
    expect(Object.fromEntries(calls.byCommand)).toEqual({ PutItemCommand: 1 });
  });
});

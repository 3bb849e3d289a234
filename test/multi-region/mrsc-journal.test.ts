import { randomBytes } from 'node:crypto';
import {
  DynamoDBJournal,
  idempotencyOf,
  InProgressError,
  JournalUnavailableError,
  LeaseLostError,
  makeIdempotent,
  MetricName,
  MultiRegionUnsupportedError,
  RecordStatus,
  type MetricsSink,
} from '../../src/index.js';
import { localClient } from '../support/dynamodb.js';
import { applyMrscProfile, mrscRegions, type Region } from './support/mrsc-profile.js';
import { REPLICATED_CONFLICT_RETRY } from '../../src/entries/multi-region.js';
import { RecordAttribute } from '../../src/entries/journal.js';
import { LEASE_MEMORY_MS } from '../../src/engine/lease-memory.js';

const countingMetrics = (names: string[]): MetricsSink =>
  ({
    singleMetric: () => ({
      addDimension: () => undefined,
      addMetric: (name: string) => names.push(name),
      clearDefaultDimensions: () => undefined,
    }),
  }) as never;

const TRANSACTIONS = ['TransactWriteItemsCommand', 'TransactGetItemsCommand'];
const transactionsSent = (regions: readonly Region[]) =>
  regions.flatMap((region) => region.sent).filter((command) => TRANSACTIONS.includes(command));

type Order = { key: string; amount: number };

async function until(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !condition(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
  if (!condition()) throw new Error('condition never held');
}

/** A charge guarded in one Region: counts its executions across every Region through `runs`. */
function chargeIn(
  region: Region,
  runs: string[],
  options: { metrics?: string[]; clock?: () => number; hang?: boolean } = {},
) {
  return makeIdempotent(
    async (input: Order, context) => {
      runs.push(region.name);
      // A crash after the reservation: this attempt never answers and never writes again.
      if (options.hang) await new Promise(() => undefined);
      const eventId = idempotencyOf(context).publish({ type: 'payment.captured', detail: { amount: input.amount } });
      return { chargedIn: region.name, amount: input.amount, eventId };
    },
    {
      journal: region.journal,
      operation: 'charge',
      key: (input) => input.key,
      leaseMs: 5_000,
      clock: options.clock,
      metrics: countingMetrics(options.metrics ?? []),
      logger: { info: () => undefined, error: () => undefined } as never,
    },
  );
}

describe('DynamoDBJournal({ multiRegion: "strong" }) on DynamoDB Local with the MRSC profile', () => {
  it('the profile refuses transactions as an MRSC table does: a single-Region journal with an outbox event fails', async () => {
    const { tableName } = await mrscRegions([]);
    const client = localClient();
    const profile = applyMrscProfile(client);
    const single = new DynamoDBJournal({ tableName, client });
    const reserved = await single.reserve({ pk: 'req#-#op#tx', fingerprint: 'f', leaseMs: 5000, ttlSeconds: 60 });
    if (!reserved.reserved) throw new Error('expected a reservation');

    const completing = single.complete({
      pk: 'req#-#op#tx',
      leaseToken: reserved.record.leaseToken,
      response: 'ok',
      ttlSeconds: 60,
      writes: {
        staged: [],
        uniqueClaims: [],
        outbox: [{ eventId: 'e-1', type: 't', detail: null, occurredAt: '2026-12-01T00:00:00.000Z' }],
      },
    });

    await expect(completing).rejects.toThrow(/ValidationException/);
    expect(profile.sent).toContain('TransactWriteItemsCommand');
  });

  it('completes a new key with one PutItem and one UpdateItem, the outbox event inside the record, no transaction', async () => {
    const { regions } = await mrscRegions();
    const runs: string[] = [];

    const result = await chargeIn(regions[0]!, runs)({ key: 'new-1', amount: 10 });

    expect(result).toMatchObject({ chargedIn: 'us-east-1', amount: 10 });
    expect(regions[0]!.sent).toEqual(['PutItemCommand', 'UpdateItemCommand']);
    expect(transactionsSent(regions)).toEqual([]);
    const record = await regions[1]!.journal.get('req#-#charge#new-1');
    expect(record?.status).toBe(RecordStatus.completed);
  });

  it('runs one execution when the same key arrives in three Regions at once; the others answer in progress or replay', async () => {
    const { regions } = await mrscRegions();
    const runs: string[] = [];
    const charges = regions.map((region) => chargeIn(region, runs));

    const settled = await Promise.allSettled(charges.map((charge) => charge({ key: 'race-1', amount: 25 })));

    expect(runs).toHaveLength(1);
    const fulfilled = settled.filter((s) => s.status === 'fulfilled');
    const rejected = settled.filter((s): s is PromiseRejectedResult => s.status === 'rejected');
    expect(fulfilled.length).toBeGreaterThanOrEqual(1);
    for (const failure of rejected) expect(failure.reason).toBeInstanceOf(InProgressError);
    // A Region that met the winner's live lease refuses from memory for a moment (each Region is its own process).
    await new Promise((resolve) => setTimeout(resolve, LEASE_MEMORY_MS));
    const replays = await Promise.all(charges.map((charge) => charge({ key: 'race-1', amount: 25 })));
    expect(new Set(replays.map((r) => JSON.stringify(r))).size).toBe(1);
    expect(runs).toHaveLength(1);
    expect(transactionsSent(regions)).toEqual([]);
  });

  it('takes over in another Region after the first Region crashed before any effect, and runs once more', async () => {
    let now = Date.UTC(2026, 11, 1);
    const clock = () => now;
    const { regions } = await mrscRegions(undefined, clock);
    const [east, west] = [regions[0]!, regions[2]!];
    const runs: string[] = [];
    void chargeIn(east, runs, { clock, hang: true })({ key: 'crash-1', amount: 5 });
    await until(() => runs.length === 1);
    now += 10_000;

    const retried = await chargeIn(west, runs, { clock })({ key: 'crash-1', amount: 5 });

    expect(runs).toEqual(['us-east-1', 'us-west-2']);
    expect(retried).toMatchObject({ chargedIn: 'us-west-2' });
    const record = await east.journal.get('req#-#charge#crash-1');
    expect(record).toMatchObject({ status: RecordStatus.completed, attempt: 2 });
  });

  it('refuses the completion of a stalled attempt that wakes up in one Region after another Region took its record over', async () => {
    let now = Date.UTC(2026, 11, 1);
    const { regions } = await mrscRegions(undefined, () => now);
    const [east, central] = [regions[0]!, regions[1]!];
    const pk = 'req#-#charge#stall-1';
    const stalled = await east.journal.reserve({ pk, fingerprint: 'f', leaseMs: 1_000, ttlSeconds: 60 });
    if (!stalled.reserved) throw new Error('expected a reservation');
    now += 2_000;
    const successor = await central.journal.takeOver({ pk, expectedToken: stalled.record.leaseToken, leaseMs: 5_000 });
    await central.journal.complete({
      pk,
      leaseToken: successor.leaseToken,
      response: { by: 'us-east-2' },
      ttlSeconds: 60,
    });

    const late = east.journal.complete({
      pk,
      leaseToken: stalled.record.leaseToken,
      response: { by: 'us-east-1' },
      ttlSeconds: 60,
    });

    await expect(late).rejects.toBeInstanceOf(LeaseLostError);
    expect((await east.journal.get(pk))?.response).toEqual({ value: { by: 'us-east-2' } });
  });

  it('stores a response too large for one item in chunk items and replays it byte-identically from another Region', async () => {
    const { regions } = await mrscRegions();
    const pk = 'req#-#charge#large-1';
    const body = randomBytes(900 * 1024).toString('base64');
    const reserved = await regions[0]!.journal.reserve({ pk, fingerprint: 'f', leaseMs: 5000, ttlSeconds: 60 });
    if (!reserved.reserved) throw new Error('expected a reservation');

    await regions[0]!.journal.complete({
      pk,
      leaseToken: reserved.record.leaseToken,
      response: { body },
      ttlSeconds: 60,
    });
    const replay = await regions[2]!.journal.reserve({ pk, fingerprint: 'f', leaseMs: 5000, ttlSeconds: 60 });

    expect(replay.reserved).toBe(false);
    expect(replay.record.response).toEqual({ value: { body } });
    expect(regions[0]!.sent).toContain('BatchWriteItemCommand');
    expect(transactionsSent(regions)).toEqual([]);
  });

  it('retries a completion refused by cross-Region conflicts within the bound and counts each conflict', async () => {
    const { regions } = await mrscRegions();
    const east = regions[0]!;
    east.conflictOn('complete', REPLICATED_CONFLICT_RETRY.maxAttempts - 1);
    const metrics: string[] = [];
    const runs: string[] = [];

    const result = await chargeIn(east, runs, { metrics })({ key: 'conflict-1', amount: 7 });

    expect(result).toMatchObject({ chargedIn: 'us-east-1' });
    expect((await east.journal.get('req#-#charge#conflict-1'))?.status).toBe(RecordStatus.completed);
    expect(metrics.filter((name) => name === MetricName.replicatedWriteConflict)).toHaveLength(
      REPLICATED_CONFLICT_RETRY.maxAttempts - 1,
    );
  });

  it('decides a reservation that kept conflicting from the record read: another Region holds it, so it is in progress', async () => {
    const { regions } = await mrscRegions();
    const [east, west] = [regions[0]!, regions[2]!];
    const pk = 'req#-#charge#conflict-2';
    await west.journal.reserve({ pk, fingerprint: 'f', leaseMs: 60_000, ttlSeconds: 60 });
    east.conflictOn('reserve', REPLICATED_CONFLICT_RETRY.maxAttempts);

    const found = await east.journal.reserve({ pk, fingerprint: 'f', leaseMs: 5000, ttlSeconds: 60 });

    expect(found.reserved).toBe(false);
    expect(found.record.status).toBe(RecordStatus.inProgress);
    expect(east.injected()).toBe(REPLICATED_CONFLICT_RETRY.maxAttempts);
  });

  it('answers journal-unavailable when conflicts outlast the bound and the record read decides nothing', async () => {
    const { regions } = await mrscRegions();
    const east = regions[0]!;
    east.conflictOn('reserve', REPLICATED_CONFLICT_RETRY.maxAttempts);
    const runs: string[] = [];

    const attempt = chargeIn(east, runs)({ key: 'conflict-3', amount: 1 });

    await expect(attempt).rejects.toBeInstanceOf(JournalUnavailableError);
    expect(runs).toEqual([]);
    expect(await east.journal.get('req#-#charge#conflict-3')).toBeUndefined();
  });

  it.each([
    ['stage()', (context: object) => idempotencyOf(context).stage({ Put: { TableName: 't', Item: { pk: 'x' } } })],
    ['claimUnique()', (context: object) => idempotencyOf(context).claimUnique('email', 'a@example.com')],
  ])(
    'refuses %s where it is called, names holdUnique or the leased protocol, and releases the record',
    async (feature, call) => {
      const { regions } = await mrscRegions();
      const region = regions[0]!;
      let runs = 0;
      const guarded = makeIdempotent(
        async (_input: Order, context) => {
          runs++;
          call(context);
          return 'unreachable';
        },
        {
          journal: region.journal,
          operation: 'refuse',
          key: (input) => input.key,
          logger: { info() {}, error() {} } as never,
        },
      );

      const first = guarded({ key: 'refused-1', amount: 1 });

      await expect(first).rejects.toBeInstanceOf(MultiRegionUnsupportedError);
      await expect(first).rejects.toThrow(feature === 'claimUnique()' ? /holdUnique/ : /beginEffect/);
      expect(await region.journal.get('req#-#refuse#refused-1')).toBeUndefined();
      await expect(guarded({ key: 'refused-1', amount: 1 })).rejects.toBeInstanceOf(MultiRegionUnsupportedError);
      expect(runs).toBe(2);
      expect(transactionsSent(regions)).toEqual([]);
    },
  );

  it("refuses effects: 'staged-only' when the guard is created, and commitStaged before anything is sent", async () => {
    const { regions } = await mrscRegions(['eu-west-1']);
    const { journal, sent } = regions[0]!;

    expect(() =>
      makeIdempotent(async () => 'x', { journal, operation: 'op', key: () => 'k', effects: 'staged-only' }),
    ).toThrow(MultiRegionUnsupportedError);
    await expect(
      journal.commitStaged({
        pk: 'req#-#op#k',
        fingerprint: 'f',
        commitToken: 't',
        createdAtEpochMs: 0,
        response: 'x',
        ttlSeconds: 60,
        writes: { staged: [], uniqueClaims: [], outbox: [] },
      }),
    ).rejects.toBeInstanceOf(MultiRegionUnsupportedError);
    expect(sent).toEqual([]);
  });

  it('keeps the outbox events in the completed record, with the stable id publish() returned', async () => {
    const { regions } = await mrscRegions();
    const runs: string[] = [];

    const result = await chargeIn(regions[1]!, runs)({ key: 'outbox-1', amount: 12 });

    const item = await regions[1]!.client.send(
      new (await import('@aws-sdk/client-dynamodb')).GetItemCommand({
        TableName: regions[1]!.journal.tableName,
        Key: { pk: { S: 'req#-#charge#outbox-1' } },
        ConsistentRead: true,
      }),
    );
    const events = JSON.parse(item.Item?.[RecordAttribute.outboxEvents]?.S ?? 'null');
    expect(events).toEqual([
      { eventId: result.eventId, type: 'payment.captured', detail: { amount: 12 }, occurredAt: expect.any(String) },
    ]);
  });
});

import { GetItemCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  DynamoDBJournal,
  idempotencyOf,
  InProgressError,
  InvalidOptionsError,
  JournalUnavailableError,
  LeaseLostError,
  makeIdempotent,
  NeedsReviewError,
  PayloadMismatchError,
  RecordStatus,
} from '../../src/index.js';
import { countCalls, createJournalTable, localClient } from '../support/dynamodb.js';
import { applyMrscProfile } from './support/mrsc-profile.js';
import { strongConsistency } from '../../src/entries/multi-region.js';
import { journalOperationOf, requestPk } from '../../src/entries/journal.js';

/**
 * Moving from a single-Region journal to a multi-Region (MRSC) one with `migrateFrom`, on
 * DynamoDB Local: the old table is a plain journal table, the new one is reached by "Region"
 * clients with the MRSC profile. Each test plays what the old journal holds for a key when the
 * first request reaches the new journal, and checks that the request runs at most once.
 */
const LEASE_MS = 2_000;
const quiet = { info: () => undefined, error: () => undefined } as never;
const noMetrics = {
  singleMetric: () => ({
    addDimension: () => undefined,
    addMetric: () => undefined,
    clearDefaultDimensions: () => undefined,
  }),
} as never;

let now = Date.UTC(2026, 11, 1);
const clock = () => now;

interface Setup {
  oldJournal: DynamoDBJournal;
  oldClient: DynamoDBClient;
  oldTable: string;
  newTable: string;
  /** A Region's multi-Region journal with the migration; `until` closes the window. */
  region(options?: { until?: Date }): { journal: DynamoDBJournal; client: DynamoDBClient };
}

async function setup(): Promise<Setup> {
  const oldClient = localClient();
  const oldTable = await createJournalTable(oldClient, 'single');
  const newTable = await createJournalTable(localClient(), 'mrsc');
  return {
    oldClient,
    oldTable,
    newTable,
    oldJournal: new DynamoDBJournal({ tableName: oldTable, client: oldClient, clock }),
    region: (options = {}) => {
      const client = localClient();
      applyMrscProfile(client);
      const journal = new DynamoDBJournal({
        tableName: newTable,
        client,
        clock,
        multiRegion: strongConsistency(),
        migrateFrom: { tableName: oldTable, client: oldClient, until: options.until },
      });
      return { journal, client };
    },
  };
}

type Charge = { key: string; amount: number };

/** A charge guarded by `journal`; every execution is pushed to `runs`. */
function charge(journal: DynamoDBJournal, runs: string[], label: string) {
  return makeIdempotent(
    async (input: Charge, context) => {
      const scope = idempotencyOf(context);
      runs.push(label);
      await scope.beginEffect('charge');
      return { chargedBy: label, amount: input.amount, attempt: scope.attempt };
    },
    {
      journal,
      operation: 'charge',
      key: (input) => input.key,
      leaseMs: LEASE_MS,
      clock,
      logger: quiet,
      metrics: noMetrics,
    },
  );
}

const pkOf = (key: string) => requestPk('-', 'charge', key);

/**
 * An attempt under the single-Region journal that stops answering (a crash, or a stall) after its
 * reservation, or after `beginEffect`: its record is what the new journal meets.
 */
async function stalledOnOldJournal(oldJournal: DynamoDBJournal, key: string, options: { afterEffect: boolean }) {
  let reached = false;
  void makeIdempotent(
    async (_input: Charge, context) => {
      if (options.afterEffect) await idempotencyOf(context).beginEffect('charge');
      reached = true;
      await new Promise(() => undefined);
    },
    {
      journal: oldJournal,
      operation: 'charge',
      key: (input) => input.key,
      leaseMs: LEASE_MS,
      clock,
      logger: quiet,
      metrics: noMetrics,
    },
  )({ key, amount: 7 });
  for (let i = 0; i < 200 && !reached; i++) await new Promise((resolve) => setTimeout(resolve, 10));
  const record = await oldJournal.get(pkOf(key));
  if (!reached || !record) throw new Error('the old attempt never started');
  return record;
}

describe('DynamoDBJournal({ multiRegion: "strong", migrateFrom }) moving from a single-Region journal', () => {
  beforeEach(() => {
    now = Date.UTC(2026, 11, 1);
  });

  it('replays a request the single-Region journal completed, runs nothing, and answers later retries from the new journal alone', async () => {
    const { oldJournal, oldClient, region } = await setup();
    const runs: string[] = [];
    const first = await charge(oldJournal, runs, 'single-Region')({ key: 'k-done', amount: 7 });
    const west = region();
    const oldCalls = countCalls(oldClient);

    const retried = await charge(west.journal, runs, 'us-west-2')({ key: 'k-done', amount: 7 });
    const oldCallsForRetry = oldCalls.total();
    const again = await charge(west.journal, runs, 'us-west-2')({ key: 'k-done', amount: 7 });

    expect(runs).toEqual(['single-Region']);
    expect(retried).toEqual(first);
    expect(again).toEqual(first);
    expect(oldCallsForRetry).toBe(1);
    expect(oldCalls.total()).toBe(1);
    expect(await west.journal.get(pkOf('k-done'))).toMatchObject({ status: RecordStatus.completed });
  });

  it('answers 422 for another payload under a key the single-Region journal completed', async () => {
    const { oldJournal, region } = await setup();
    const runs: string[] = [];
    await charge(oldJournal, runs, 'single-Region')({ key: 'k-other', amount: 7 });

    const retried = charge(region().journal, runs, 'us-west-2')({ key: 'k-other', amount: 8 });

    await expect(retried).rejects.toBeInstanceOf(PayloadMismatchError);
    expect(runs).toEqual(['single-Region']);
  });

  it('answers in progress while the single-Region journal runs the request, and gives its own reservation back', async () => {
    const { oldJournal, region } = await setup();
    const running = await stalledOnOldJournal(oldJournal, 'k-live', { afterEffect: false });
    const west = region();
    const runs: string[] = [];

    const retried = charge(west.journal, runs, 'us-west-2')({ key: 'k-live', amount: 7 });

    await expect(retried).rejects.toBeInstanceOf(InProgressError);
    expect(runs).toEqual([]);
    expect(await oldJournal.get(pkOf('k-live'))).toMatchObject({ leaseToken: running.leaseToken });
    const { Item } = await west.client.send(
      new GetItemCommand({
        TableName: west.journal.tableName,
        Key: { pk: { S: pkOf('k-live') } },
        ConsistentRead: true,
      }),
    );
    expect(Item).toBeUndefined();
  });

  it('takes over a request the single-Region journal abandoned before any effect: it runs once more, and the stalled attempt is fenced out of the old table', async () => {
    const { oldJournal, region } = await setup();
    const pk = pkOf('k-crashed');
    const abandoned = await stalledOnOldJournal(oldJournal, 'k-crashed', { afterEffect: false });
    const west = region();
    const runs: string[] = [];
    now += LEASE_MS + 1;

    const retried = await charge(west.journal, runs, 'us-west-2')({ key: 'k-crashed', amount: 7 });

    expect(runs).toEqual(['us-west-2']);
    expect(retried).toMatchObject({ chargedBy: 'us-west-2', attempt: 2 });
    expect(await west.journal.get(pk)).toMatchObject({
      status: RecordStatus.completed,
      attempt: 2,
      createdAtEpochMs: abandoned.createdAtEpochMs,
    });
    await expect(oldJournal.beginEffect(pk, abandoned.leaseToken, 'charge')).rejects.toBeInstanceOf(LeaseLostError);
  });

  it('never runs again a request whose effect began under the single-Region journal: it needs review in the new one', async () => {
    const { oldJournal, region } = await setup();
    const pk = pkOf('k-effect');
    const west = region();
    await stalledOnOldJournal(oldJournal, 'k-effect', { afterEffect: true });
    now += LEASE_MS + 1;
    const runs: string[] = [];

    const retried = charge(west.journal, runs, 'us-west-2')({ key: 'k-effect', amount: 7 });

    await expect(retried).rejects.toBeInstanceOf(NeedsReviewError);
    expect(runs).toEqual([]);
    expect(await west.journal.get(pk)).toMatchObject({ status: RecordStatus.unknown, effectStarted: true });
  });

  it('keeps code still on the single-Region journal from running a key the new journal holds: it meets a request in progress', async () => {
    const { oldJournal, region } = await setup();
    const runs: string[] = [];
    await charge(region().journal, runs, 'us-west-2')({ key: 'k-forwarded', amount: 7 });

    const lateOldCode = charge(oldJournal, runs, 'single-Region')({ key: 'k-forwarded', amount: 7 });
    const lateOldCodeOtherPayload = charge(oldJournal, runs, 'single-Region')({ key: 'k-forwarded', amount: 9 });

    // Both expectations attach at once: the second attempt may be refused while the first is still awaited.
    await Promise.all([
      expect(lateOldCode).rejects.toBeInstanceOf(InProgressError),
      expect(lateOldCodeOtherPayload).rejects.toBeInstanceOf(PayloadMismatchError),
    ]);
    expect(runs).toEqual(['us-west-2']);
  });

  it('runs a request once when old code and new code receive it at the same moment during the deploy', async () => {
    const { oldJournal, region } = await setup();
    const west = region();

    for (let i = 0; i < 8; i++) {
      const runs: string[] = [];
      const key = `k-race-${i}`;
      const settled = await Promise.allSettled([
        charge(oldJournal, runs, 'single-Region')({ key, amount: 7 }),
        charge(west.journal, runs, 'us-west-2')({ key, amount: 7 }),
      ]);

      expect(runs).toHaveLength(1);
      for (const outcome of settled)
        if (outcome.status === 'rejected') expect(outcome.reason).toBeInstanceOf(InProgressError);
    }
  });

  it('loses nothing when an attempt stops between taking over the old record and copying it: the next attempt copies the state the old table kept', async () => {
    const { oldJournal, region } = await setup();
    const pk = pkOf('k-torn');
    const west = region();
    await stalledOnOldJournal(oldJournal, 'k-torn', { afterEffect: true });
    now += LEASE_MS + 1;
    // The copy into the new table fails once, after the old record was taken over: a crash at that point.
    let failures = 1;
    west.client.middlewareStack.add(
      (next) => async (args) => {
        if (journalOperationOf(args) === 'migrate' && failures > 0) {
          failures--;
          throw Object.assign(new Error('connection reset'), { name: 'TimeoutError' });
        }
        return next(args);
      },
      { step: 'initialize', name: 'tornCopy' },
    );
    const runs: string[] = [];

    const first = charge(west.journal, runs, 'us-west-2')({ key: 'k-torn', amount: 7 });
    await expect(first).rejects.toBeInstanceOf(JournalUnavailableError);
    now += LEASE_MS + 1;
    const retried = charge(west.journal, runs, 'us-west-2')({ key: 'k-torn', amount: 7 });

    await expect(retried).rejects.toBeInstanceOf(NeedsReviewError);
    expect(runs).toEqual([]);
    expect(await west.journal.get(pk)).toMatchObject({ status: RecordStatus.unknown, effectStarted: true });
  });

  it('stops reading the single-Region table once the window closes', async () => {
    const { oldJournal, oldClient, region } = await setup();
    const runs: string[] = [];
    await charge(oldJournal, runs, 'single-Region')({ key: 'k-late', amount: 7 });
    const west = region({ until: new Date(now - 1) });
    const oldCalls = countCalls(oldClient);

    await charge(west.journal, runs, 'us-west-2')({ key: 'k-late', amount: 7 });

    expect(oldCalls.total()).toBe(0);
    expect(runs).toEqual(['single-Region', 'us-west-2']);
  });

  it('refuses migrateFrom on a journal that is not multi-Region, and an until that is not a date', () => {
    expect(() => new DynamoDBJournal({ tableName: 'journal', migrateFrom: { tableName: 'old-journal' } })).toThrow(
      InvalidOptionsError,
    );
    expect(
      () =>
        new DynamoDBJournal({
          tableName: 'journal',
          multiRegion: strongConsistency(),
          migrateFrom: { tableName: 'old-journal', until: 'tomorrow' as never },
        }),
    ).toThrow(/until/);
  });
});

import { GetItemCommand, PutItemCommand, ScanCommand } from '@aws-sdk/client-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { randomBytes } from 'node:crypto';
import { MetricName, type MetricsSink } from '../../src/index.js';
import { mrscRegions, type Region } from './support/mrsc-profile.js';
import { journalSweeper, REPLICATED_CONFLICT_RETRY } from '../../src/entries/multi-region.js';
import { journalOperationOf, requestPk } from '../../src/entries/journal.js';

const recordingMetrics = (seen: Array<[string, number]>): MetricsSink =>
  ({
    singleMetric: () => ({
      addDimension: () => undefined,
      addMetric: (name: string, _unit: string, value: number) => seen.push([name, value]),
      clearDefaultDimensions: () => undefined,
    }),
  }) as never;

const START = Date.UTC(2026, 11, 1);

async function completed(region: Region, pk: string, ttlSeconds: number, response: unknown = { ok: true }) {
  const reserved = await region.journal.reserve({ pk, fingerprint: 'f', leaseMs: 1_000, ttlSeconds });
  if (!reserved.reserved) throw new Error('expected a reservation');
  await region.journal.complete({ pk, leaseToken: reserved.record.leaseToken, response, ttlSeconds });
}

async function keys(region: Region): Promise<string[]> {
  const out = await region.client.send(new ScanCommand({ TableName: region.journal.tableName, ConsistentRead: true }));
  return (out.Items ?? []).map((item) => item.pk!.S!).sort();
}

describe('journalSweeper on a multi-Region journal (DynamoDB Local, MRSC profile)', () => {
  async function table() {
    const clock = { now: START };
    const { regions } = await mrscRegions(undefined, () => clock.now);
    return { clock, regions, east: regions[0]!, west: regions[2]! };
  }

  it('deletes expired completed records and their chunks, and keeps UNKNOWN, live and unexpired records', async () => {
    const { clock, east } = await table();
    await completed(east, 'req#-#op#expired', 60);
    await completed(east, 'req#-#op#large', 60, { body: randomBytes(700 * 1024).toString('base64') });
    await completed(east, 'req#-#op#fresh', 3600);
    const unknown = await east.journal.reserve({
      pk: 'req#-#op#unknown',
      fingerprint: 'f',
      leaseMs: 1_000,
      ttlSeconds: 60,
    });
    await east.journal.markUnknown('req#-#op#unknown', unknown.record.leaseToken);
    // Past its expiresAt but under a live lease: a reservation could not claim it either.
    await east.client.send(
      new PutItemCommand({
        TableName: east.journal.tableName,
        Item: marshall({
          pk: 'req#-#op#leased',
          status: 'IN_PROGRESS',
          leaseToken: 't',
          leaseUntil: START + 3_600_000,
          expiresAt: START / 1000 + 1,
        }),
      }),
    );
    clock.now = START + 120_000;
    const seen: Array<[string, number]> = [];
    const before = await keys(east);

    const report = await journalSweeper({
      tableName: east.journal.tableName,
      client: east.client,
      clock: () => clock.now,
      metrics: recordingMetrics(seen),
    })();

    expect(await keys(east)).toEqual(['req#-#op#fresh', 'req#-#op#leased', 'req#-#op#unknown']);
    const chunks = before.filter((pk) => pk.startsWith('req#-#op#large#chunk#'));
    expect(chunks.length).toBeGreaterThan(1);
    expect(report).toMatchObject({ deleted: 2 + chunks.length, skipped: 0, complete: true });
    expect(seen).toEqual([
      [MetricName.sweptRecords, 2 + chunks.length],
      [MetricName.unreadableRecords, 0],
    ]);
    expect(east.sent).not.toContain('TransactWriteItemsCommand');
  });

  it('leaves expired records it cannot read (a status it does not know, none), and counts and logs each', async () => {
    const { clock, east } = await table();
    const put = (item: Record<string, unknown>) =>
      east.client.send(new PutItemCommand({ TableName: east.journal.tableName, Item: marshall(item) }));
    const expired = { leaseToken: 't', leaseUntil: START - 1, expiresAt: START / 1000 + 1, fingerprint: 'f' };
    await put({ pk: requestPk('acme', 'POST /refunds', 'paused-key'), status: 'PAUSED', ...expired });
    await put({ pk: requestPk('acme', 'POST /refunds', 'no-status-key'), ...expired });
    await completed(east, 'req#-#op#expired', 60);
    clock.now = START + 120_000;
    const seen: Array<[string, number]> = [];
    const logged: Array<[string, Record<string, unknown>]> = [];

    const report = await journalSweeper({
      tableName: east.journal.tableName,
      client: east.client,
      clock: () => clock.now,
      metrics: recordingMetrics(seen),
      logger: {
        info: () => undefined,
        error: (message: string, fields: Record<string, unknown>) => logged.push([message, fields]),
      } as never,
    })();

    expect(report).toMatchObject({ deleted: 1, unreadable: 2, complete: true });
    expect(await keys(east)).toEqual([
      requestPk('acme', 'POST /refunds', 'no-status-key'),
      requestPk('acme', 'POST /refunds', 'paused-key'),
    ]);
    expect(seen).toContainEqual([MetricName.unreadableRecords, 2]);
    const reasons = logged.map(([message, fields]) => [message, fields.reason]).sort();
    expect(reasons).toEqual([
      ['idempotency sweeper left an unreadable record', 'it has no status'],
      ['idempotency sweeper left an unreadable record', 'status "PAUSED" is not one the guard knows'],
    ]);
    // Named as the guard's log line names an attempt: tenant, operation and the key's hash, never the key.
    expect(logged[0]![1]).toMatchObject({ tenant_id: 'acme', operation: 'POST /refunds' });
    expect(JSON.stringify(logged)).not.toMatch(/paused-key|no-status-key/);
  });

  it('bounds the work of one run and resumes where it stopped on the next run', async () => {
    const { clock, east } = await table();
    for (const key of ['a', 'b', 'c']) await completed(east, `req#-#op#${key}`, 60);
    clock.now = START + 120_000;
    const sweep = journalSweeper({
      tableName: east.journal.tableName,
      client: east.client,
      clock: () => clock.now,
      maxDeletesPerRun: 1,
      pageSize: 1,
      metrics: recordingMetrics([]),
    });

    const first = await sweep();
    const second = await sweep();
    const rest = await sweep();

    expect([first.deleted, second.deleted]).toEqual([1, 1]);
    expect(first.complete).toBe(false);
    expect(first.deleted + second.deleted + rest.deleted).toBe(3);
    expect(await keys(east)).toEqual([]);
  });

  it('skips a record another Region reserved again between the scan and the delete', async () => {
    const { clock, east, west } = await table();
    await completed(east, 'req#-#op#reused', 60);
    clock.now = START + 120_000;
    let reserved = false;
    east.client.middlewareStack.add(
      (next) => async (args) => {
        if (journalOperationOf(args) === 'sweep' && !reserved) {
          reserved = true;
          await west.journal.reserve({ pk: 'req#-#op#reused', fingerprint: 'g', leaseMs: 30_000, ttlSeconds: 60 });
        }
        return next(args);
      },
      { step: 'initialize', name: 'reserveInAnotherRegion' },
    );

    const report = await journalSweeper({
      tableName: east.journal.tableName,
      client: east.client,
      clock: () => clock.now,
      metrics: recordingMetrics([]),
    })();

    expect(report).toMatchObject({ deleted: 0, skipped: 1 });
    const item = await east.client.send(
      new GetItemCommand({
        TableName: east.journal.tableName,
        Key: { pk: { S: 'req#-#op#reused' } },
        ConsistentRead: true,
      }),
    );
    expect(item.Item?.status?.S).toBe('IN_PROGRESS');
  });

  it('retries a delete refused by cross-Region conflicts within the bound', async () => {
    const { clock, east } = await table();
    await completed(east, 'req#-#op#contended', 60);
    clock.now = START + 120_000;
    east.conflictOn('sweep', REPLICATED_CONFLICT_RETRY.maxAttempts - 1);

    const report = await journalSweeper({
      tableName: east.journal.tableName,
      client: east.client,
      clock: () => clock.now,
      metrics: recordingMetrics([]),
    })();

    expect(report).toMatchObject({ deleted: 1, skipped: 0 });
    expect(east.injected()).toBe(REPLICATED_CONFLICT_RETRY.maxAttempts - 1);
  });
});

import { runCli } from '../../src/cli/index.js';
import { DynamoDBJournal } from '../../src/index.js';
import { PutItemCommand } from '@aws-sdk/client-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { createJournalTable, createTable, localClient } from '../support/dynamodb.js';
import { requestPk } from '../../src/entries/journal.js';

async function cli(...args: string[]) {
  const lines: string[] = [];
  const code = await runCli(args, { out: (t) => lines.push(t), err: (t) => lines.push(t) });
  return { code, text: lines.join('\n') };
}

describe('idemkit operator CLI', () => {
  const client = localClient();
  const endpoint = process.env.IDEMKIT_TEST_DYNAMODB_ENDPOINT!;
  let tableName: string;
  let journal: DynamoDBJournal;
  beforeAll(async () => {
    tableName = await createJournalTable(client);
    journal = new DynamoDBJournal({ tableName, client });
  });

  it('inspects one record as a timeline', async () => {
    // A key holding the separator shows as the caller sent it.
    const pk = requestPk('acme', 'POST /payments', 'inspect#1%');
    const r = await journal.reserve({ pk, fingerprint: 'abc', leaseMs: 60_000, ttlSeconds: 60 });
    if (!r.reserved) throw new Error('expected a reservation');
    await journal.beginEffect(pk, r.record.leaseToken, 'charge');
    await journal.recordEvidence(pk, r.record.leaseToken, { chargeId: 'ch_9' });
    const out = await cli('--table', tableName, '--endpoint', endpoint, 'inspect', pk);
    expect(out.code).toBe(0);
    expect(out.text).toMatch(/status\s+IN_PROGRESS/);
    expect(out.text).toContain("scope      tenant 'acme', operation 'POST /payments', key 'inspect#1%'");
    expect(out.text).toMatch(/lease\s+until .* \(held\)/);
    expect(out.text).toMatch(/effect\s+started \(charge\)/);
    expect(out.text).toMatch(/evidence\s+chargeId=ch_9/);
  });

  it('says so when the key is unknown', async () => {
    const out = await cli('--table', tableName, '--endpoint', endpoint, 'inspect', 'req#-#op#nope');
    expect(out.code).toBe(1);
    expect(out.text).toMatch(/No record with pk 'req#-#op#nope'/);
  });

  it('says so when the table does not exist', async () => {
    const out = await cli('--table', 'no-such-table', '--endpoint', endpoint, 'stuck');
    expect(out.code).toBe(1);
    expect(out.text).toMatch(/Table no-such-table does not exist/);
  });

  it('says so when the table is not a journal', async () => {
    const other = await createTable(client, 'orders', 'orderId');
    const out = await cli('--table', other, '--endpoint', endpoint, 'stuck');
    expect(out.code).toBe(1);
    expect(out.text).toMatch(/partition key 'orderId', not 'pk'/);
  });

  it('says so when there are no credentials', async () => {
    const saved = {
      id: process.env.AWS_ACCESS_KEY_ID,
      secret: process.env.AWS_SECRET_ACCESS_KEY,
      profile: process.env.AWS_PROFILE,
      files: process.env.AWS_SHARED_CREDENTIALS_FILE,
      config: process.env.AWS_CONFIG_FILE,
    };
    delete process.env.AWS_ACCESS_KEY_ID;
    delete process.env.AWS_SECRET_ACCESS_KEY;
    process.env.AWS_SHARED_CREDENTIALS_FILE = '/nonexistent/credentials';
    process.env.AWS_CONFIG_FILE = '/nonexistent/config';
    process.env.AWS_EC2_METADATA_DISABLED = 'true';
    try {
      const out = await cli('--table', tableName, '--endpoint', endpoint, 'stuck');
      expect(out.code).toBe(1);
      expect(out.text).toMatch(/No AWS credentials found/);
    } finally {
      process.env.AWS_ACCESS_KEY_ID = saved.id;
      process.env.AWS_SECRET_ACCESS_KEY = saved.secret;
      if (saved.files === undefined) delete process.env.AWS_SHARED_CREDENTIALS_FILE;
      if (saved.config === undefined) delete process.env.AWS_CONFIG_FILE;
    }
  });

  it('lists the stuck records it can read, names the one it cannot on stderr, and exits 1', async () => {
    const own = await createJournalTable(client);
    const stale = new DynamoDBJournal({ tableName: own, client, clock: () => Date.now() - 120_000 });
    const readable = requestPk('acme', 'POST /payments', 'stuck-readable');
    await stale.reserve({ pk: readable, fingerprint: 'abc', leaseMs: 1_000, ttlSeconds: 600 });
    const broken = requestPk('acme', 'POST /payments', 'stuck-broken');
    // In progress under an ended lease, so stuck, but its evidence is no map: the guard cannot read it.
    await client.send(
      new PutItemCommand({
        TableName: own,
        Item: marshall({
          pk: broken,
          status: 'IN_PROGRESS',
          fingerprint: 'abc',
          leaseToken: 't',
          leaseUntil: Date.now() - 60_000,
          evidence: 'not a map',
        }),
      }),
    );
    const out: string[] = [];
    const err: string[] = [];

    const code = await runCli(['--table', own, '--endpoint', endpoint, 'stuck', '--json'], {
      out: (t) => out.push(t),
      err: (t) => err.push(t),
    });

    expect(code).toBe(1);
    expect((JSON.parse(out.join('\n')) as Array<{ pk: string }>).map((record) => record.pk)).toEqual([readable]);
    expect(err).toEqual([`error: The idempotency record ${broken} cannot be read: attribute 'evidence' is not a map`]);
  });

  it('refuses to resolve a record that still holds its lease', async () => {
    const pk = requestPk('acme', 'POST /payments', 'live-1');
    await journal.reserve({ pk, fingerprint: 'abc', leaseMs: 60_000, ttlSeconds: 60 });
    const out = await cli('--table', tableName, '--endpoint', endpoint, 'resolve', pk, '--released');
    expect(out.code).toBe(1);
    expect(out.text).toMatch(/Only UNKNOWN records or records whose lease expired can be resolved/);
  });

  it('asks for exactly one resolution', async () => {
    const out = await cli(
      '--table',
      tableName,
      '--endpoint',
      endpoint,
      'resolve',
      'req#x',
      '--released',
      '--completed',
      '{}',
    );
    expect(out.code).toBe(1);
    expect(out.text).toMatch(/exactly one of/);
  });
});

import { JournalUnavailableError, RecordUnreadableError, UniqueConflictError } from '../../src/index.js';
import { PutItemCommand, GetItemCommand } from '@aws-sdk/client-dynamodb';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import { mrscRegions, type Region } from './support/mrsc-profile.js';
import { REPLICATED_CONFLICT_RETRY } from '../../src/entries/multi-region.js';
import { requestPk, uniquePk } from '../../src/entries/journal.js';

/**
 * A multi-Region write whose cross-Region conflicts outlast the bound is decided on the item read
 * afterwards, from the write's own condition: these are the conditions of held uniqueness claims
 * (`holdUnique`), and a reservation over a record the guard cannot read. Each conflict stands for
 * a write another Region made at that moment (`meanwhile`), against the real DynamoDB Local.
 */
const BOUND = REPLICATED_CONFLICT_RETRY.maxAttempts;
const LEASE_MS = 1_000;

let now = Date.now();
const clock = () => now;

async function regions(): Promise<{ tableName: string; east: Region; west: Region }> {
  const { tableName, regions: made } = await mrscRegions(['us-east-1', 'us-west-2'], clock);
  return { tableName, east: made[0]!, west: made[1]! };
}

async function reserved(region: Region, key: string) {
  const pk = requestPk('-', 'refund', key);
  const result = await region.journal.reserve({ pk, fingerprint: 'f', leaseMs: LEASE_MS, ttlSeconds: 60 });
  if (!result.reserved) throw new Error('expected a reservation');
  return { pk, leaseToken: result.record.leaseToken, createdAtEpochMs: result.record.createdAtEpochMs };
}

const claim = { name: 'refund-of', value: 'pay-1' };

/** The hold of `claim` by the attempt holding `record`. */
const holdBy = (record: Awaited<ReturnType<typeof reserved>>) => ({
  claim,
  ownerPk: record.pk,
  ownerCreatedAtEpochMs: record.createdAtEpochMs,
  leaseToken: record.leaseToken,
});

async function claimItem(region: Region, tableName: string) {
  const out = await region.client.send(
    new GetItemCommand({ TableName: tableName, Key: marshall({ pk: uniquePk(claim.name, claim.value) }) }),
  );
  return out.Item ? unmarshall(out.Item) : undefined;
}

describe('multi-Region writes decided after the conflict bound: held uniqueness claims', () => {
  beforeEach(() => {
    now = Date.now();
  });

  it('answers UniqueConflictError, not journal-unavailable, when the claim read after the conflicts is held by a live attempt of another record', async () => {
    const { east, west } = await regions();
    const first = await reserved(east, 'k-east');
    const second = await reserved(west, 'k-west');
    west.conflictOn('holdUnique', BOUND, () => east.journal.holdUnique(holdBy(first)));

    const holding = west.journal.holdUnique(holdBy(second));

    await expect(holding).rejects.toBeInstanceOf(UniqueConflictError);
    await expect(holding).rejects.toMatchObject({ existing: { claimedBy: first.pk, holdToken: first.leaseToken } });
    expect(west.injected()).toBe(BOUND);
  });

  it('answers journal-unavailable when the claim read after the conflicts is still free: nothing decided the write', async () => {
    const { west } = await regions();
    const mine = await reserved(west, 'k-west');
    west.conflictOn('holdUnique', BOUND);

    const holding = west.journal.holdUnique(holdBy(mine));

    await expect(holding).rejects.toBeInstanceOf(JournalUnavailableError);
  });

  it('keeps a stale hold whose holder renewed its lease in another Region while the fence kept conflicting', async () => {
    const { tableName, east, west } = await regions();
    const holder = await reserved(east, 'k-east');
    await east.journal.holdUnique(holdBy(holder));
    now += LEASE_MS + 1;
    const taker = await reserved(west, 'k-west');
    // The holder is alive after all: its heartbeat lands in us-east-1 while us-west-2 tries to fence it.
    west.conflictOn('fenceHolder', BOUND, () => east.journal.heartbeat(holder.pk, holder.leaseToken, LEASE_MS));

    const taking = west.journal.holdUnique(holdBy(taker));

    await expect(taking).rejects.toBeInstanceOf(UniqueConflictError);
    expect(await claimItem(west, tableName)).toMatchObject({ claimedBy: holder.pk, holdToken: holder.leaseToken });
    expect((await east.journal.get(holder.pk))?.leaseToken).toBe(holder.leaseToken);
  });

  it('lets go of a hold quietly when the claim read after the conflicts was taken over by another Region', async () => {
    const { tableName, east, west } = await regions();
    const holder = await reserved(east, 'k-east');
    const hold = holdBy(holder);
    await east.journal.holdUnique(hold);
    now += LEASE_MS + 1;
    const taker = await reserved(west, 'k-west');
    east.conflictOn('letGoUnique', BOUND, () => west.journal.holdUnique(holdBy(taker)));

    await expect(east.journal.letGoUnique(hold)).resolves.toBeUndefined();

    expect(await claimItem(east, tableName)).toMatchObject({ claimedBy: taker.pk, holdToken: taker.leaseToken });
  });

  it('fails a reservation over a record in a status the guard does not know as unreadable, never as claimable, after the conflicts', async () => {
    const { tableName, west } = await regions();
    const pk = requestPk('-', 'refund', 'k-paused');
    // Past its expiresAt, but in a status no version of the guard writes: it may stand for an effect.
    const foreign = { pk, status: 'PAUSED', leaseToken: 'x', leaseUntil: now - 10_000, expiresAt: 1, fingerprint: 'f' };
    await west.client.send(new PutItemCommand({ TableName: tableName, Item: marshall(foreign) }));
    west.conflictOn('reserve', BOUND);

    const reserving = west.journal.reserve({ pk, fingerprint: 'f', leaseMs: LEASE_MS, ttlSeconds: 60 });

    await expect(reserving).rejects.toBeInstanceOf(RecordUnreadableError);
    expect(
      unmarshall(
        (await west.client.send(new GetItemCommand({ TableName: tableName, Key: marshall({ pk }) }))).Item ?? {},
      ),
    ).toMatchObject({ status: 'PAUSED' });
  });
});

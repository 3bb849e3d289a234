import { randomBytes, randomUUID } from 'node:crypto';
import { GetCommand, DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import {
  DynamoDBJournal,
  LeaseLostError,
  MemoryJournal,
  NotResolvableError,
  RecordStatus,
  ResponseTooLargeError,
  UniqueConflictError,
  WriteConflictError,
} from '../../src/index.js';
import type { CompletionWrites } from '../../src/journal/index.js';
import { createJournalTable, createTable, localClient } from '../support/dynamodb.js';
import { outboxPk, uniquePk, type Journal, MEMORY_JOURNAL_TABLE } from '../../src/entries/journal.js';

interface Subject {
  journal: Journal;
  clock: { now: number };
  /** Reads an item of the journal table or a staged table, whatever the implementation. */
  readItem: (table: 'journal' | 'domain', pk: string) => Promise<Record<string, unknown> | undefined>;
  domainTable: string;
}

const START_MS = Date.UTC(2026, 10, 30, 10, 0, 0);

async function memorySubject(): Promise<Subject> {
  const clock = { now: START_MS };
  const journal = new MemoryJournal({ clock: () => clock.now });
  return {
    journal,
    clock,
    domainTable: 'domain',
    readItem: async (table, pk) =>
      journal.tables.get(table === 'journal' ? MEMORY_JOURNAL_TABLE : 'domain')?.get(JSON.stringify([pk])),
  };
}

async function dynamoSubject(): Promise<Subject> {
  const clock = { now: START_MS };
  const client = localClient();
  const tableName = await createJournalTable(client);
  const domainTable = await createTable(client, 'domain');
  const doc = DynamoDBDocumentClient.from(client);
  return {
    journal: new DynamoDBJournal({ tableName, client, clock: () => clock.now }),
    clock,
    domainTable,
    readItem: async (table, pk) =>
      (
        await doc.send(
          new GetCommand({
            TableName: table === 'journal' ? tableName : domainTable,
            Key: { pk },
            ConsistentRead: true,
          }),
        )
      ).Item,
  };
}

const noWrites = { staged: [], uniqueClaims: [], outbox: [] };

describe.each([
  ['MemoryJournal', memorySubject],
  ['DynamoDBJournal', dynamoSubject],
])('%s', (_name, makeSubject) => {
  let s: Subject;
  beforeAll(async () => {
    s = await makeSubject();
  });
  beforeEach(() => {
    s.clock.now += 10 * 24 * 3600 * 1000; // every test starts on a fresh day of the fake clock
  });
  /** When each record reserved here was created: with its key, the operation a hold names. */
  const createdAt = new Map<string, number>();
  const reserve = async (pk: string, fingerprint = 'fp-1', leaseMs = 1_000) => {
    const result = await s.journal.reserve({ pk, fingerprint, leaseMs, ttlSeconds: 3600 });
    if (result.reserved) createdAt.set(pk, result.record.createdAtEpochMs);
    return result;
  };

  it('reserves a new key with a fresh lease, attempt 1 and an expiry', async () => {
    const result = await reserve('req#t#op#new');
    expect(result.reserved).toBe(true);
    expect(result.record).toMatchObject({
      status: RecordStatus.inProgress,
      attempt: 1,
      fingerprint: 'fp-1',
      leaseUntilEpochMs: s.clock.now + 1_000,
      effectStarted: false,
    });
    expect(result.record.expiresAtEpochSeconds).toBe(Math.floor(s.clock.now / 1000) + 3600);
  });

  it('returns the existing record instead of reserving a held key', async () => {
    const first = await reserve('req#t#op#held');
    const second = await reserve('req#t#op#held', 'fp-2');
    expect(second.reserved).toBe(false);
    expect(second.record.leaseToken).toBe(first.record.leaseToken);
    expect(second.record.fingerprint).toBe('fp-1');
  });

  it('treats a record past expiresAt as absent and says it replaced an expired one', async () => {
    const first = await reserve('req#t#op#expired');
    await s.journal.complete({
      pk: 'req#t#op#expired',
      leaseToken: first.record.leaseToken,
      response: { n: 1 },
      ttlSeconds: 60,
    });
    s.clock.now += 61_000;
    const again = await reserve('req#t#op#expired');
    expect(again).toMatchObject({ reserved: true, replacedExpired: true });
  });

  it('never treats a record under a live lease as expired, even with a TTL shorter than the lease', async () => {
    const first = await s.journal.reserve({
      pk: 'req#t#op#short-ttl',
      fingerprint: 'fp-1',
      leaseMs: 10_000,
      ttlSeconds: 1,
    });
    expect(first.record.expiresAtEpochSeconds).toBeGreaterThanOrEqual(Math.ceil((s.clock.now + 10_000) / 1000));
    s.clock.now += 5_000;
    expect(
      (await s.journal.reserve({ pk: 'req#t#op#short-ttl', fingerprint: 'fp-1', leaseMs: 10_000, ttlSeconds: 1 }))
        .reserved,
    ).toBe(false);
    s.clock.now += 6_000;
    expect(
      await s.journal.reserve({ pk: 'req#t#op#short-ttl', fingerprint: 'fp-1', leaseMs: 10_000, ttlSeconds: 1 }),
    ).toMatchObject({ reserved: true, replacedExpired: true });
  });

  it('keeps a record whose lease a heartbeat extended past its expiresAt', async () => {
    const first = await s.journal.reserve({
      pk: 'req#t#op#heartbeat-past-ttl',
      fingerprint: 'fp-1',
      leaseMs: 1_000,
      ttlSeconds: 60,
    });
    s.clock.now += 59_000;
    await s.journal.heartbeat('req#t#op#heartbeat-past-ttl', first.record.leaseToken, 10_000);
    s.clock.now += 6_000;
    expect(
      (
        await s.journal.reserve({
          pk: 'req#t#op#heartbeat-past-ttl',
          fingerprint: 'fp-1',
          leaseMs: 1_000,
          ttlSeconds: 60,
        })
      ).reserved,
    ).toBe(false);
  });

  it('replays a completed response, including an undefined one', async () => {
    const first = await reserve('req#t#op#undef');
    await s.journal.complete({
      pk: 'req#t#op#undef',
      leaseToken: first.record.leaseToken,
      response: undefined,
      ttlSeconds: 60,
    });
    const again = await reserve('req#t#op#undef');
    expect(again.reserved).toBe(false);
    expect(again.record.status).toBe(RecordStatus.completed);
    expect(again.record.response).toEqual({ value: undefined });
  });

  it('refuses a completion fenced on another token and returns the stored record', async () => {
    const first = await reserve('req#t#op#fence');
    const error = await s.journal
      .complete({ pk: 'req#t#op#fence', leaseToken: 'not-my-token', response: 'x', ttlSeconds: 60 })
      .catch((e) => e);
    expect(error).toBeInstanceOf(LeaseLostError);
    expect(error.existing.leaseToken).toBe(first.record.leaseToken);
  });

  it('takes over only an expired lease, with a new token and attempt + 1', async () => {
    const first = await reserve('req#t#op#takeover');
    await expect(
      s.journal.takeOver({ pk: 'req#t#op#takeover', expectedToken: first.record.leaseToken, leaseMs: 1_000 }),
    ).rejects.toBeInstanceOf(LeaseLostError);
    s.clock.now += 1_001;
    const taken = await s.journal.takeOver({
      pk: 'req#t#op#takeover',
      expectedToken: first.record.leaseToken,
      leaseMs: 1_000,
    });
    expect(taken.attempt).toBe(2);
    expect(taken.leaseToken).not.toBe(first.record.leaseToken);
    await expect(
      s.journal.complete({
        pk: 'req#t#op#takeover',
        leaseToken: first.record.leaseToken,
        response: 'late',
        ttlSeconds: 60,
      }),
    ).rejects.toBeInstanceOf(LeaseLostError);
  });

  it('extends a lease with heartbeat so it cannot be taken over', async () => {
    const first = await reserve('req#t#op#heartbeat');
    s.clock.now += 900;
    await s.journal.heartbeat('req#t#op#heartbeat', first.record.leaseToken, 1_000);
    s.clock.now += 900;
    await expect(
      s.journal.takeOver({ pk: 'req#t#op#heartbeat', expectedToken: first.record.leaseToken, leaseMs: 1_000 }),
    ).rejects.toBeInstanceOf(LeaseLostError);
  });

  it('stops a record from expiring once an effect began, and merges evidence', async () => {
    const first = await reserve('req#t#op#effect');
    await s.journal.beginEffect('req#t#op#effect', first.record.leaseToken, 'charge');
    await s.journal.recordEvidence('req#t#op#effect', first.record.leaseToken, { chargeId: 'ch_1' });
    await s.journal.recordEvidence('req#t#op#effect', first.record.leaseToken, { attempts: 2 });
    s.clock.now += 7_200_000;
    const again = await reserve('req#t#op#effect');
    expect(again.reserved).toBe(false);
    expect(again.record).toMatchObject({
      effectStarted: true,
      effectName: 'charge',
      evidence: { chargeId: 'ch_1', attempts: 2 },
    });
    expect(again.record.expiresAtEpochSeconds).toBeUndefined();
  });

  it('marks an abandoned record UNKNOWN only after its lease expired', async () => {
    const first = await reserve('req#t#op#abandoned');
    await expect(s.journal.markAbandonedUnknown('req#t#op#abandoned', first.record.leaseToken)).rejects.toBeInstanceOf(
      LeaseLostError,
    );
    s.clock.now += 2_000;
    const marked = await s.journal.markAbandonedUnknown('req#t#op#abandoned', first.record.leaseToken);
    expect(marked.status).toBe(RecordStatus.unknown);
    expect(marked.expiresAtEpochSeconds).toBeUndefined();
  });

  it('releases a record it holds, and never a completed one', async () => {
    const first = await reserve('req#t#op#release');
    await s.journal.release('req#t#op#release', first.record.leaseToken);
    expect(await s.journal.get('req#t#op#release')).toBeUndefined();
    const second = await reserve('req#t#op#release');
    await s.journal.complete({
      pk: 'req#t#op#release',
      leaseToken: second.record.leaseToken,
      response: 'done',
      ttlSeconds: 60,
    });
    await expect(s.journal.release('req#t#op#release', second.record.leaseToken)).rejects.toBeInstanceOf(
      LeaseLostError,
    );
    expect((await s.journal.get('req#t#op#release'))?.status).toBe(RecordStatus.completed);
  });

  it('commits a uniqueness claim with the completion and refuses a second claim, committing nothing', async () => {
    const a = await reserve('req#t#op#claim-a');
    await s.journal.complete({
      pk: 'req#t#op#claim-a',
      leaseToken: a.record.leaseToken,
      response: 'a',
      ttlSeconds: 60,
      writes: {
        ...noWrites,
        uniqueClaims: [{ name: 'refund', value: 'pay_1' }],
      },
    });
    expect(await s.readItem('journal', uniquePk('refund', 'pay_1'))).toMatchObject({ claimedBy: 'req#t#op#claim-a' });
    const b = await reserve('req#t#op#claim-b');
    const staged = [{ Put: { TableName: s.domainTable, Item: { pk: 'row-b' } } }];
    const error = await s.journal
      .complete({
        pk: 'req#t#op#claim-b',
        leaseToken: b.record.leaseToken,
        response: 'b',
        ttlSeconds: 60,
        writes: {
          ...noWrites,
          staged,
          uniqueClaims: [{ name: 'refund', value: 'pay_1' }],
        },
      })
      .catch((e) => e);
    expect(error).toBeInstanceOf(UniqueConflictError);
    expect(error.existing).toMatchObject({ claimedBy: 'req#t#op#claim-a' });
    expect((await s.journal.get('req#t#op#claim-b'))?.status).toBe(RecordStatus.inProgress);
    expect(await s.readItem('domain', 'row-b')).toBeUndefined();
  });

  it('reports a staged write whose condition fails, committing nothing', async () => {
    const a = await reserve('req#t#op#staged');
    const staged = [
      { Put: { TableName: s.domainTable, Item: { pk: 'row-new' } } },
      { Put: { TableName: s.domainTable, Item: { pk: 'row-missing' }, ConditionExpression: 'attribute_exists(pk)' } },
    ];
    const error = await s.journal
      .complete({
        pk: 'req#t#op#staged',
        leaseToken: a.record.leaseToken,
        response: 'x',
        ttlSeconds: 60,
        writes: { ...noWrites, staged },
      })
      .catch((e) => e);
    expect(error).toBeInstanceOf(WriteConflictError);
    expect(error.itemIndex).toBe(1);
    expect(await s.readItem('domain', 'row-new')).toBeUndefined();
  });

  it('lets an operator resolve an UNKNOWN record as completed, but not a live one', async () => {
    const a = await reserve('req#t#op#resolve');
    await expect(s.journal.resolve('req#t#op#resolve', { outcome: 'released' })).rejects.toBeInstanceOf(
      NotResolvableError,
    );
    await s.journal.markUnknown('req#t#op#resolve', a.record.leaseToken);
    await s.journal.resolve('req#t#op#resolve', {
      outcome: 'completed',
      response: { statusCode: 201 },
      ttlSeconds: 60,
    });
    const again = await reserve('req#t#op#resolve');
    expect(again.record).toMatchObject({ status: RecordStatus.completed, response: { value: { statusCode: 201 } } });
  });

  describe('holdUnique', () => {
    const hold = (ownerPk: string, leaseToken: string, value = 'pay-1') => ({
      claim: { name: 'refund', value },
      ownerPk,
      ownerCreatedAtEpochMs: createdAt.get(ownerPk)!,
      leaseToken,
    });

    it('takes a free claim at once, refuses it to another record while held, and makes it permanent at completion', async () => {
      const a = await reserve('req#t#op#hold-a');
      const b = await reserve('req#t#op#hold-b');
      await s.journal.holdUnique(hold(a.record.pk, a.record.leaseToken, 'pay-hold-1'));

      const refused = await s.journal.holdUnique(hold(b.record.pk, b.record.leaseToken, 'pay-hold-1')).catch((e) => e);
      await s.journal.complete({
        pk: a.record.pk,
        leaseToken: a.record.leaseToken,
        response: 'done',
        ttlSeconds: 60,
        writes: {
          ...noWrites,
          heldClaims: [{ name: 'refund', value: 'pay-hold-1' }],
        },
      });

      expect(refused).toBeInstanceOf(UniqueConflictError);
      expect(refused.existing).toMatchObject({ claimedBy: a.record.pk });
      const claim = await s.readItem('journal', uniquePk('refund', 'pay-hold-1'));
      expect(claim).toMatchObject({ claimedBy: a.record.pk });
      expect(claim?.holdToken).toBeUndefined();
    });

    it('lets a hold go with its attempt, so another record can take it', async () => {
      const a = await reserve('req#t#op#hold-release-a');
      const b = await reserve('req#t#op#hold-release-b');
      await s.journal.holdUnique(hold(a.record.pk, a.record.leaseToken, 'pay-hold-2'));

      await s.journal.letGoUnique(hold(a.record.pk, a.record.leaseToken, 'pay-hold-2'));
      await s.journal.holdUnique(hold(b.record.pk, b.record.leaseToken, 'pay-hold-2'));

      expect(await s.readItem('journal', uniquePk('refund', 'pay-hold-2'))).toMatchObject({
        claimedBy: b.record.pk,
        holdToken: b.record.leaseToken,
      });
    });

    it('gives a later attempt of the same record the hold of the attempt it took over', async () => {
      const a = await reserve('req#t#op#hold-same');
      await s.journal.holdUnique(hold(a.record.pk, a.record.leaseToken, 'pay-hold-3'));
      s.clock.now += 1_001;
      const taken = await s.journal.takeOver({ pk: a.record.pk, expectedToken: a.record.leaseToken, leaseMs: 1_000 });

      await s.journal.holdUnique(hold(a.record.pk, taken.leaseToken, 'pay-hold-3'));

      expect((await s.readItem('journal', uniquePk('refund', 'pay-hold-3')))?.holdToken).toBe(taken.leaseToken);
    });

    it('takes over the hold of another record’s attempt whose lease ended before any effect, fencing that attempt out', async () => {
      const a = await reserve('req#t#op#hold-stale-a');
      await s.journal.holdUnique(hold(a.record.pk, a.record.leaseToken, 'pay-hold-4'));
      s.clock.now += 1_001;
      const b = await reserve('req#t#op#hold-stale-b');

      await s.journal.holdUnique(hold(b.record.pk, b.record.leaseToken, 'pay-hold-4'));

      expect((await s.readItem('journal', uniquePk('refund', 'pay-hold-4')))?.claimedBy).toBe(b.record.pk);
      // The stalled holder wakes up: it can neither begin its effect nor complete.
      await expect(s.journal.beginEffect(a.record.pk, a.record.leaseToken, 'refund')).rejects.toBeInstanceOf(
        LeaseLostError,
      );
      await expect(
        s.journal.complete({
          pk: a.record.pk,
          leaseToken: a.record.leaseToken,
          response: 'late',
          ttlSeconds: 60,
          writes: {
            ...noWrites,
            heldClaims: [{ name: 'refund', value: 'pay-hold-4' }],
          },
        }),
      ).rejects.toBeInstanceOf(LeaseLostError);
    });

    it('keeps the hold of an attempt that began its effect, even after its lease ended', async () => {
      const a = await reserve('req#t#op#hold-effect-a');
      await s.journal.holdUnique(hold(a.record.pk, a.record.leaseToken, 'pay-hold-5'));
      await s.journal.beginEffect(a.record.pk, a.record.leaseToken, 'refund');
      s.clock.now += 1_001;
      const b = await reserve('req#t#op#hold-effect-b');

      await expect(s.journal.holdUnique(hold(b.record.pk, b.record.leaseToken, 'pay-hold-5'))).rejects.toBeInstanceOf(
        UniqueConflictError,
      );
      expect((await s.readItem('journal', uniquePk('refund', 'pay-hold-5')))?.claimedBy).toBe(a.record.pk);
    });

    it('keeps a pinned hold from every other operation, even once its holder’s record is gone', async () => {
      const a = await reserve('req#t#op#hold-pin-a');
      await s.journal.holdUnique(hold(a.record.pk, a.record.leaseToken, 'pay-hold-7'));
      await s.journal.pinUnique(hold(a.record.pk, a.record.leaseToken, 'pay-hold-7'));
      await s.journal.release(a.record.pk, a.record.leaseToken);
      s.clock.now += 1_001;
      const b = await reserve('req#t#op#hold-pin-b');
      const again = await reserve('req#t#op#hold-pin-a');

      await expect(s.journal.holdUnique(hold(b.record.pk, b.record.leaseToken, 'pay-hold-7'))).rejects.toBeInstanceOf(
        UniqueConflictError,
      );
      // The same key, reserved anew, is another operation.
      await expect(
        s.journal.holdUnique(hold(again.record.pk, again.record.leaseToken, 'pay-hold-7')),
      ).rejects.toBeInstanceOf(UniqueConflictError);
      expect(await s.readItem('journal', uniquePk('refund', 'pay-hold-7'))).toMatchObject({
        claimedBy: a.record.pk,
        holdToken: a.record.leaseToken,
        pinned: true,
      });
    });

    it('takes an unpinned hold of the same key’s earlier operation once its record is gone', async () => {
      const a = await reserve('req#t#op#hold-reuse');
      await s.journal.holdUnique(hold(a.record.pk, a.record.leaseToken, 'pay-hold-8'));
      await s.journal.release(a.record.pk, a.record.leaseToken);
      s.clock.now += 1_001;
      const again = await reserve('req#t#op#hold-reuse');

      await s.journal.holdUnique(hold(again.record.pk, again.record.leaseToken, 'pay-hold-8'));

      expect((await s.readItem('journal', uniquePk('refund', 'pay-hold-8')))?.holdToken).toBe(again.record.leaseToken);
    });

    it('gives a pinned hold back to a later attempt of the same operation, still pinned', async () => {
      const a = await reserve('req#t#op#hold-pin-same');
      await s.journal.holdUnique(hold(a.record.pk, a.record.leaseToken, 'pay-hold-9'));
      await s.journal.pinUnique(hold(a.record.pk, a.record.leaseToken, 'pay-hold-9'));
      s.clock.now += 1_001;
      const taken = await s.journal.takeOver({ pk: a.record.pk, expectedToken: a.record.leaseToken, leaseMs: 1_000 });

      await s.journal.holdUnique(hold(a.record.pk, taken.leaseToken, 'pay-hold-9'));

      expect(await s.readItem('journal', uniquePk('refund', 'pay-hold-9'))).toMatchObject({
        holdToken: taken.leaseToken,
        pinned: true,
      });
    });

    it('refuses to pin a hold another operation took over, and lets its holder go of one it pinned', async () => {
      const a = await reserve('req#t#op#hold-pin-lost-a');
      await s.journal.holdUnique(hold(a.record.pk, a.record.leaseToken, 'pay-hold-10'));
      s.clock.now += 1_001;
      const b = await reserve('req#t#op#hold-pin-lost-b');
      await s.journal.holdUnique(hold(b.record.pk, b.record.leaseToken, 'pay-hold-10'));

      const pinning = s.journal.pinUnique(hold(a.record.pk, a.record.leaseToken, 'pay-hold-10'));
      await s.journal.pinUnique(hold(b.record.pk, b.record.leaseToken, 'pay-hold-10'));
      await s.journal.letGoUnique(hold(b.record.pk, b.record.leaseToken, 'pay-hold-10'));

      await expect(pinning).rejects.toBeInstanceOf(UniqueConflictError);
      expect(await s.readItem('journal', uniquePk('refund', 'pay-hold-10'))).toBeUndefined();
    });

    it('refuses a claim committed for good, whoever asks', async () => {
      const a = await reserve('req#t#op#hold-permanent-a');
      await s.journal.complete({
        pk: a.record.pk,
        leaseToken: a.record.leaseToken,
        response: 'done',
        ttlSeconds: 60,
        writes: {
          ...noWrites,
          uniqueClaims: [{ name: 'refund', value: 'pay-hold-6' }],
        },
      });
      const b = await reserve('req#t#op#hold-permanent-b');

      await expect(s.journal.holdUnique(hold(b.record.pk, b.record.leaseToken, 'pay-hold-6'))).rejects.toBeInstanceOf(
        UniqueConflictError,
      );
    });
  });

  describe('commitStaged (effects: staged-only)', () => {
    const commit = (
      pk: string,
      options: {
        fingerprint?: string;
        response?: unknown;
        writes?: Partial<CompletionWrites>;
      } = {},
    ) =>
      s.journal.commitStaged({
        pk,
        fingerprint: options.fingerprint ?? 'fp-1',
        commitToken: randomUUID(),
        createdAtEpochMs: s.clock.now,
        response: options.response ?? { statusCode: 201 },
        ttlSeconds: 3600,
        writes: { ...noWrites, ...options.writes },
      });
    const row = (pk: string, condition?: string) => ({
      Put: { TableName: s.domainTable, Item: { pk }, ...(condition ? { ConditionExpression: condition } : {}) },
    });

    it('commits a new key: the completed record with its response, the staged write, the claim and the outbox event together', async () => {
      const event = {
        eventId: 'ev-staged-1',
        type: 'order.confirmed',
        detail: { n: 1 },
        occurredAt: '2026-11-30T10:00:00.000Z',
      };
      const result = await commit('req#t#op#staged-new', {
        writes: {
          staged: [row('row-staged-new')],
          uniqueClaims: [{ name: 'order', value: 'o-staged-1' }],
          outbox: [event],
        },
      });
      expect(result).toEqual({ kind: 'committed' });
      expect(await s.journal.get('req#t#op#staged-new')).toMatchObject({
        status: RecordStatus.completed,
        fingerprint: 'fp-1',
        attempt: 1,
        response: { value: { statusCode: 201 } },
      });
      expect((await s.journal.get('req#t#op#staged-new'))?.expiresAtEpochSeconds).toBe(
        Math.floor(s.clock.now / 1000) + 3600,
      );
      expect(await s.readItem('domain', 'row-staged-new')).toBeDefined();
      expect(await s.readItem('journal', uniquePk('order', 'o-staged-1'))).toMatchObject({
        claimedBy: 'req#t#op#staged-new',
      });
      expect(await s.readItem('journal', outboxPk('ev-staged-1'))).toMatchObject({ type: 'order.confirmed' });
    });

    it('refuses over a completed record and returns it with its response, committing nothing of its own', async () => {
      await commit('req#t#op#staged-done', { response: { first: true } });
      const again = await commit('req#t#op#staged-done', {
        response: { first: false },
        writes: { staged: [row('row-staged-done')] },
      });
      expect(again).toMatchObject({
        kind: 'refused',
        record: { status: RecordStatus.completed, response: { value: { first: true } } },
      });
      expect(await s.readItem('domain', 'row-staged-done')).toBeUndefined();
    });

    it('returns the record of another fingerprint, for the caller to refuse', async () => {
      await commit('req#t#op#staged-other', { fingerprint: 'fp-1' });
      const again = await commit('req#t#op#staged-other', { fingerprint: 'fp-2' });
      expect(again).toMatchObject({ kind: 'refused', record: { fingerprint: 'fp-1' } });
    });

    it('refuses over a live lease of a leased attempt', async () => {
      const leased = await reserve('req#t#op#staged-leased');
      const again = await commit('req#t#op#staged-leased');
      expect(again).toMatchObject({
        kind: 'refused',
        record: { status: RecordStatus.inProgress, leaseToken: leased.record.leaseToken },
      });
    });

    it('lets the record decide when a staged write’s own condition also fails', async () => {
      await commit('req#t#op#staged-decides', {
        writes: { staged: [row('row-staged-decides', 'attribute_not_exists(pk)')] },
      });
      const again = await commit('req#t#op#staged-decides', {
        writes: { staged: [row('row-staged-decides', 'attribute_not_exists(pk)')] },
      });
      expect(again).toMatchObject({ kind: 'refused', record: { status: RecordStatus.completed } });
    });

    it('commits over a record past its expiresAt at the first try', async () => {
      await commit('req#t#op#staged-expired', { response: 'old' });
      s.clock.now += 3_601_000;
      expect(await commit('req#t#op#staged-expired', { response: 'new' })).toEqual({ kind: 'committed' });
      expect((await s.journal.get('req#t#op#staged-expired'))?.response).toEqual({ value: 'new' });
    });

    it('commits over a leased attempt that vanished before any effect, whose late completion is then refused', async () => {
      const leased = await reserve('req#t#op#staged-abandoned');
      s.clock.now += 1_001;
      expect(await commit('req#t#op#staged-abandoned', { response: 'staged' })).toEqual({
        kind: 'committed',
      });
      await expect(
        s.journal.complete({
          pk: 'req#t#op#staged-abandoned',
          leaseToken: leased.record.leaseToken,
          response: 'late',
          ttlSeconds: 60,
        }),
      ).rejects.toBeInstanceOf(LeaseLostError);
      expect((await s.journal.get('req#t#op#staged-abandoned'))?.response).toEqual({ value: 'staged' });
    });

    it('refuses over an expired lease whose attempt began an effect', async () => {
      const leased = await reserve('req#t#op#staged-effect');
      await s.journal.beginEffect('req#t#op#staged-effect', leased.record.leaseToken, 'charge');
      s.clock.now += 1_001;
      expect(await commit('req#t#op#staged-effect')).toMatchObject({
        kind: 'refused',
        record: { effectStarted: true },
      });
    });

    it('refuses a held uniqueness claim and a failed staged condition, committing nothing', async () => {
      await commit('req#t#op#staged-claim-a', { writes: { uniqueClaims: [{ name: 'order', value: 'o-staged-2' }] } });
      const claim = await commit('req#t#op#staged-claim-b', {
        writes: { staged: [row('row-claim-b')], uniqueClaims: [{ name: 'order', value: 'o-staged-2' }] },
      }).catch((e) => e);
      const write = await commit('req#t#op#staged-write', {
        writes: { staged: [row('row-write-new'), row('row-write-missing', 'attribute_exists(pk)')] },
      }).catch((e) => e);
      expect(claim).toBeInstanceOf(UniqueConflictError);
      expect(claim.existing).toMatchObject({ claimedBy: 'req#t#op#staged-claim-a' });
      expect(write).toBeInstanceOf(WriteConflictError);
      expect(write.itemIndex).toBe(1);
      expect(await s.journal.get('req#t#op#staged-claim-b')).toBeUndefined();
      expect(await s.journal.get('req#t#op#staged-write')).toBeUndefined();
      expect(await s.readItem('domain', 'row-claim-b')).toBeUndefined();
      expect(await s.readItem('domain', 'row-write-new')).toBeUndefined();
    });

    it('commits a response too large for one item in chunks, read back whole', async () => {
      const body = randomBytes(600 * 1024).toString('base64');
      expect(await commit('req#t#op#staged-chunked', { response: { body } })).toEqual({ kind: 'committed' });
      const record = await s.journal.get('req#t#op#staged-chunked');
      expect((record?.response?.value as { body: string }).body).toBe(body);
      const replay = await commit('req#t#op#staged-chunked', { response: { body: 'other' } });
      expect(replay.kind === 'refused' && (replay.record.response?.value as { body: string }).body).toBe(body);
    });

    it('refuses a response past the transaction’s limits before anything is written', async () => {
      const body = randomBytes(4_500_000).toString('base64');
      const error = await commit('req#t#op#staged-too-large', {
        response: { body },
        writes: { staged: [row('row-too-large')] },
      }).catch((e) => e);
      expect(error).toBeInstanceOf(ResponseTooLargeError);
      expect(await s.journal.get('req#t#op#staged-too-large')).toBeUndefined();
      expect(await s.readItem('domain', 'row-too-large')).toBeUndefined();
    });
  });
});

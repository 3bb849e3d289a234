import { LeaseLostError, MemoryJournal } from '../../../src/index.js';
import { CountedJournal } from '../../../src/engine/counted-journal.js';
import { LeaseMemory } from '../../../src/engine/lease-memory.js';
import type { JournalRecord, ReserveRequest } from '../../../src/entries/journal.js';

/**
 * The single-flight and the lease memory on the in-memory journal, each attempt with its own counted view of one
 * journal instance, as the engine makes them.
 */

const request = (fingerprint = 'f'.repeat(64), extra: Partial<ReserveRequest> = {}): ReserveRequest => ({
  pk: `req#-#op#${Math.random()}`,
  fingerprint,
  leaseMs: 30_000,
  ttlSeconds: 3_600,
  ...extra,
});

describe('the single-flight of a journal', () => {
  it('lets one of two concurrent reservations of a new key win; the other meets its record, and makes no call', async () => {
    const journal = new MemoryJournal();
    const reserve = jest.spyOn(journal, 'reserve');
    const [first, second] = [new CountedJournal(journal), new CountedJournal(journal)];
    const asked = request();

    const [won, lost] = await Promise.all([first.reserve(asked), second.reserve({ ...asked, leaseMs: 1 })]);

    expect(reserve).toHaveBeenCalledTimes(1);
    expect(won.reserved).toBe(true);
    expect(lost).toEqual({ reserved: false, record: won.record });
    expect(lost.record).not.toBe(won.record);
    expect([first.calls, second.calls]).toEqual([1, 0]);
  });

  it('lets one of two concurrent takeovers of the same token land; the other loses with LeaseLostError', async () => {
    let now = 1_000_000;
    const journal = new MemoryJournal({ clock: () => now });
    const asked = request(undefined, { leaseMs: 10 });
    const { record } = await journal.reserve(asked);
    now += 1_000;
    const takeOver = { pk: asked.pk, expectedToken: record.leaseToken, leaseMs: 30_000 };

    const [landed, lost] = await Promise.allSettled([
      new CountedJournal(journal).takeOver(takeOver),
      new CountedJournal(journal).takeOver(takeOver),
    ]);

    expect(landed.status).toBe('fulfilled');
    expect(lost).toMatchObject({ status: 'rejected', reason: expect.any(LeaseLostError) });
  });

  it('never shares between journal instances or keys', async () => {
    const [one, other] = [new MemoryJournal(), new MemoryJournal()];
    const asked = request();

    const answers = await Promise.all([
      new CountedJournal(one).reserve(asked),
      new CountedJournal(other).reserve(asked),
      new CountedJournal(one).reserve({ ...asked, pk: `${asked.pk}-2` }),
    ]);

    expect(answers.map((a) => a.reserved)).toEqual([true, true, true]);
  });
});

describe('the lease memory', () => {
  const now = 1_000_000;
  const held = (overrides: Partial<JournalRecord> = {}): JournalRecord =>
    ({
      pk: 'req#-#op#k',
      fingerprint: 'a'.repeat(64),
      status: 'IN_PROGRESS',
      leaseToken: 't',
      leaseUntilEpochMs: now + 30_000,
      attempt: 1,
      effectStarted: false,
      createdAtEpochMs: now,
      updatedAtEpochMs: now,
      expiresAtEpochSeconds: now / 1000 + 3_600,
      evidence: {},
      ...overrides,
    }) as JournalRecord;
  const asking = (overrides: Partial<ReserveRequest> = {}): ReserveRequest => ({
    pk: 'req#-#op#k',
    fingerprint: 'a'.repeat(64),
    leaseMs: 30_000,
    ttlSeconds: 3_600,
    ...overrides,
  });

  it('refuses the same request while the lease lives, with a copy of the record', () => {
    const memory = new LeaseMemory();
    const record = held();
    memory.note(record, now);

    const refusal = memory.refusal(asking(), now + 10);

    expect(refusal).toEqual(record);
    expect(refusal).not.toBe(record);
  });

  it.each([
    ['another payload (the journal says 422, or that the key is free)', asking({ fingerprint: 'b'.repeat(64) }), now],
    ['the durable execution that holds the record (it resumes)', asking({ durableExecutionArn: 'arn:x' }), now],
    ['anyone once the memory lapsed (a second)', asking(), now + 1_000],
  ])('leaves %s to the journal', (_name, request, at) => {
    const memory = new LeaseMemory();
    memory.note(held({ durableExecutionArn: 'arn:x' }), now);

    expect(memory.refusal(request, at)).toBeUndefined();
  });

  it.each([
    ['a completed record', held({ status: 'COMPLETED' } as Partial<JournalRecord>)],
    ['a lease that already ended', held({ leaseUntilEpochMs: now - 1 })],
  ])('remembers nothing of %s, and forgets what it held', (_name, record) => {
    const memory = new LeaseMemory();
    memory.note(held(), now);
    memory.note(record, now);

    expect(memory.refusal(asking(), now)).toBeUndefined();
  });

  it('never remembers past the lease’s end', () => {
    const memory = new LeaseMemory();
    memory.note(held({ leaseUntilEpochMs: now + 200 }), now);

    expect(memory.refusal(asking(), now + 199)).toBeDefined();
    expect(memory.refusal(asking(), now + 200)).toBeUndefined();
  });
});

import {
  DynamoDBJournal,
  NeedsReviewError,
  RecordStatus,
  fingerprintOf,
  makeIdempotent,
  type IdempotencyScope,
} from '../../src/index.js';
import { createJournalTable, localClient } from '../support/dynamodb.js';
import { type TakeOverRequest } from '../../src/entries/journal.js';

const PK = 'req#-#op#k';
const INPUT = { id: 'k' };

/**
 * A journal whose takeover is preceded by one more write of the attempt it takes over: the retry read
 * the record before its holder called beginEffect, and takes it over after (the model checker's
 * counterexample, replayed on DynamoDB Local).
 */
class EffectBeforeTakeOverJournal extends DynamoDBJournal {
  originalToken = '';

  override async takeOver(request: TakeOverRequest) {
    if (this.originalToken) await this.beginEffect(request.pk, this.originalToken, 'charge');
    this.originalToken = '';
    return super.takeOver(request);
  }
}

describe('a retry that takes over a lease whose holder began its effect after the retry read the record, on DynamoDB Local', () => {
  let journal: EffectBeforeTakeOverJournal;
  const clock = { now: Date.UTC(2026, 10, 30, 10, 0, 0) };

  beforeEach(async () => {
    const client = localClient();
    journal = new EffectBeforeTakeOverJournal({
      tableName: await createJournalTable(client),
      client,
      clock: () => clock.now,
    });
    const reserved = await journal.reserve({
      pk: PK,
      fingerprint: fingerprintOf(INPUT),
      leaseMs: 1_000,
      ttlSeconds: 3_600,
    });
    journal.originalToken = reserved.record.leaseToken;
    clock.now += 2_000;
  });

  it('does not run the handler again and leaves the record for review when there is no recover hook', async () => {
    let runs = 0;
    const retry = makeIdempotent(async () => ++runs, {
      journal,
      operation: 'op',
      key: (input: { id: string }) => input.id,
      clock: () => clock.now,
      leaseMs: 1_000,
    });

    const answer = await retry(INPUT).catch((error: unknown) => error);

    expect(answer).toBeInstanceOf(NeedsReviewError);
    expect(runs).toBe(0);
    expect((await journal.get(PK))?.status).toBe(RecordStatus.unknown);
  });

  it('asks the recover hook, as a recovering attempt, instead of running the handler as new', async () => {
    let runs = 0;
    const seen: IdempotencyScope[] = [];
    const retry = makeIdempotent(async () => ++runs, {
      journal,
      operation: 'op',
      key: (input: { id: string }) => input.id,
      clock: () => clock.now,
      leaseMs: 1_000,
      recover: async (scope) => {
        seen.push(scope);
        return { outcome: 'completed', response: 'charged once' };
      },
    });

    const answer = await retry(INPUT);

    expect(answer).toBe('charged once');
    expect(runs).toBe(0);
    expect(seen.map((scope) => scope.recovering)).toEqual([true]);
    expect((await journal.get(PK))?.status).toBe(RecordStatus.completed);
  });
});

import { DynamoDBJournal, MemoryJournal } from '../../src/index.js';
import { createJournalTable, localClient } from '../support/dynamodb.js';
import { type Journal } from '../../src/entries/journal.js';

const START_MS = Date.UTC(2026, 11, 1, 10, 0, 0);
const EXECUTION_A = 'arn:aws:lambda:us-east-1:123456789012:function:fulfil:$LATEST/durable-execution/a/1';
const EXECUTION_B = 'arn:aws:lambda:us-east-1:123456789012:function:fulfil:$LATEST/durable-execution/b/2';

async function memoryJournal(clock: () => number): Promise<Journal> {
  return new MemoryJournal({ clock });
}

async function dynamoJournal(clock: () => number): Promise<Journal> {
  const client = localClient();
  return new DynamoDBJournal({ tableName: await createJournalTable(client, 'owner'), client, clock });
}

describe.each([
  ['MemoryJournal', memoryJournal],
  ['DynamoDBJournal', dynamoJournal],
])('%s: the durable execution that owns a record', (_name, makeJournal) => {
  let nowMs = START_MS;
  let journal: Journal;
  beforeAll(async () => {
    journal = await makeJournal(() => nowMs);
  });
  beforeEach(() => {
    nowMs += 24 * 3600 * 1000;
  });
  const reserve = (pk: string, durableExecutionArn?: string) =>
    journal.reserve({ pk, fingerprint: 'fp', leaseMs: 1_000, ttlSeconds: 3600, durableExecutionArn });

  it('is recorded by the reservation and comes back with the record a duplicate meets', async () => {
    await reserve('req#t#op#owned', EXECUTION_A);

    const duplicate = await reserve('req#t#op#owned', EXECUTION_B);

    expect(duplicate.reserved).toBe(false);
    expect(duplicate.record.durableExecutionArn).toBe(EXECUTION_A);
  });

  it('is absent on a record reserved outside a durable execution', async () => {
    await reserve('req#t#op#plain');

    expect((await journal.get('req#t#op#plain'))?.durableExecutionArn).toBeUndefined();
  });

  it('changes to the execution that takes the record over', async () => {
    const first = await reserve('req#t#op#taken', EXECUTION_A);
    nowMs += 1_001;

    const taken = await journal.takeOver({
      pk: 'req#t#op#taken',
      expectedToken: first.record.leaseToken,
      leaseMs: 1_000,
      durableExecutionArn: EXECUTION_B,
    });

    expect(taken.durableExecutionArn).toBe(EXECUTION_B);
    expect((await journal.get('req#t#op#taken'))?.durableExecutionArn).toBe(EXECUTION_B);
  });

  it('is dropped when an attempt outside any durable execution takes the record over', async () => {
    const first = await reserve('req#t#op#dropped', EXECUTION_A);
    nowMs += 1_001;

    const taken = await journal.takeOver({
      pk: 'req#t#op#dropped',
      expectedToken: first.record.leaseToken,
      leaseMs: 1_000,
    });

    expect(taken.durableExecutionArn).toBeUndefined();
    expect((await journal.get('req#t#op#dropped'))?.durableExecutionArn).toBeUndefined();
  });
});

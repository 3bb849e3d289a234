import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBJournal, InvalidOptionsError, MemoryJournal } from '../../../src/index.js';

describe('journal options', () => {
  const client = new DynamoDBClient({ region: 'us-east-1', endpoint: 'http://127.0.0.1:9' });

  it.each([
    ['a misspelt option', { tableName: 'journal', client, clok: Date.now }, /unknown option 'clok'/],
    ['a clock that is not a function', { tableName: 'journal', client, clock: 5 }, /option 'clock' must be a function/],
    ['a client without send', { tableName: 'journal', client: {} }, /option 'client' must be a DynamoDBClient/],
    [
      'a table name too short',
      { tableName: 'j', client },
      /option 'tableName' must be a table name of at least 3 characters/,
    ],
  ])('DynamoDBJournal refuses %s with InvalidOptionsError', (_name, options, message) => {
    const build = () => new DynamoDBJournal(options as never);
    expect(build).toThrow(InvalidOptionsError);
    expect(build).toThrow(message);
  });

  it.each([
    ['a misspelt option', { tableKey: {} }, /unknown option 'tableKey'/],
    ['a clock that is not a function', { clock: 'now' }, /option 'clock' must be a function/],
    ['table keys that are not lists of names', { tableKeys: { orders: 'pk' } }, /option 'tableKeys'/],
    ['an empty list of table keys', { tableKeys: { orders: [] } }, /option 'tableKeys'/],
  ])('MemoryJournal refuses %s with InvalidOptionsError', (_name, options, message) => {
    const build = () => new MemoryJournal(options as never);
    expect(build).toThrow(InvalidOptionsError);
    expect(build).toThrow(message);
  });

  it('takes what the options document', async () => {
    let now = 1_000_000;
    const journal = new MemoryJournal({ clock: () => now, tableKeys: { orders: ['orderId'] } });
    const reserved = await journal.reserve({ pk: 'req#-#op#k', fingerprint: 'f', leaseMs: 1000, ttlSeconds: 60 });
    expect(reserved).toMatchObject({ reserved: true, record: { createdAtEpochMs: 1_000_000 } });
    now += 5;
    expect(new DynamoDBJournal({ tableName: 'journal', client, clock: () => now }).tableName).toBe('journal');
  });
});

import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { DynamoDBJournal, RecordStatus } from '../../src/index.js';
import { countCalls, createJournalTable, localClient } from '../support/dynamodb.js';

describe('DynamoDBJournal clients', () => {
  it('works the same through a DocumentClient built on the base client', async () => {
    const client = localClient();
    const tableName = await createJournalTable(client);
    const doc = DynamoDBDocumentClient.from(client);
    const journal = new DynamoDBJournal({ tableName, client: doc });
    const reserved = await journal.reserve({ pk: 'req#-#op#doc', fingerprint: 'f', leaseMs: 1000, ttlSeconds: 60 });
    if (!reserved.reserved) throw new Error('expected a reservation');
    await journal.complete('req#-#op#doc', reserved.record.leaseToken, { ok: true }, 60);
    const again = await journal.reserve({ pk: 'req#-#op#doc', fingerprint: 'f', leaseMs: 1000, ttlSeconds: 60 });
    expect(again).toMatchObject({ reserved: false, record: { status: RecordStatus.completed, response: { value: { ok: true } } } });
  });

  it('sends low-level item commands, one per journal call', async () => {
    const client = localClient();
    const tableName = await createJournalTable(client);
    const counter = countCalls(client);
    const journal = new DynamoDBJournal({ tableName, client });
    const reserved = await journal.reserve({ pk: 'req#-#op#calls', fingerprint: 'f', leaseMs: 1000, ttlSeconds: 60 });
    if (!reserved.reserved) throw new Error('expected a reservation');
    await journal.complete('req#-#op#calls', reserved.record.leaseToken, 'x', 60);
    expect(Object.fromEntries(counter.byCommand)).toEqual({ PutItemCommand: 1, UpdateItemCommand: 1 });
  });
});

import { randomUUID } from 'node:crypto';
import { DynamoDBJournal, IdemkitEnvironment, InvalidOptionsError, makeIdempotent } from '../../src/index.js';
import { createJournalTable, localClient } from '../support/dynamodb.js';
import { httpEvent, lambdaContext } from '../support/lambda.js';

/*
 * A handler module builds its journal when it loads; a unit test imports that module before it sets
 * IDEMKIT_TABLE_NAME (or never sets it, testing other code of the module). Building the journal must
 * not throw then: the variable is read when the journal is first used, and only a use without a table
 * fails, with the typed error naming the variable.
 */
const VARIABLE = IdemkitEnvironment.tableName;
let saved: string | undefined;

beforeEach(() => {
  saved = process.env[VARIABLE];
  delete process.env[VARIABLE];
});

afterEach(() => {
  if (saved === undefined) delete process.env[VARIABLE];
  else process.env[VARIABLE] = saved;
});

describe('DynamoDBJournal without IDEMKIT_TABLE_NAME when it is built', () => {
  it('lets a test import a handler module that builds its journal at load', async () => {
    await expect(import('./fixtures/handler-with-journal-at-load.js')).resolves.toHaveProperty('handler');
  });

  it('serves the handler once the test sets IDEMKIT_TABLE_NAME after importing it', async () => {
    const { handler } = await import('./fixtures/handler-with-journal-at-load.js');
    process.env[VARIABLE] = await createJournalTable(localClient());
    const event = httpEvent({ key: randomUUID(), body: { amount: 5 } });

    const first = await handler(event, lambdaContext());
    const retry = await handler(event, lambdaContext());

    expect(first.statusCode).toBe(201);
    expect(retry.body).toBe(first.body);
    expect(retry.headers?.['Idempotent-Replayed']).toBe('true');
  });

  it('refuses its first use while no table is named, with InvalidOptionsError naming IDEMKIT_TABLE_NAME', async () => {
    const guarded = makeIdempotent(async (amount: number) => amount, {
      journal: new DynamoDBJournal({ client: localClient() }),
      operation: 'charge',
      key: String,
    });

    const refusal = guarded(5);

    await expect(refusal).rejects.toThrow(InvalidOptionsError);
    await expect(refusal).rejects.toThrow(/'tableName' option or set IDEMKIT_TABLE_NAME .*; it is not set/);
  });

  it('says so when its table name is read', () => {
    const journal = new DynamoDBJournal({ client: localClient() });

    expect(() => journal.tableName).toThrow(InvalidOptionsError);
  });

  it('still refuses an explicit tableName that cannot name a table when it is built', () => {
    expect(() => new DynamoDBJournal({ tableName: 'ab' })).toThrow(InvalidOptionsError);
  });

  it('keeps the table it found when it was built, whatever the variable says later', async () => {
    const client = localClient();
    const tableName = await createJournalTable(client);
    process.env[VARIABLE] = tableName;
    const journal = new DynamoDBJournal({ client });
    process.env[VARIABLE] = 'another-table';

    expect(journal.tableName).toBe(tableName);
  });
});

import { randomBytes, randomUUID } from 'node:crypto';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { DynamoDBJournal, RecordStatus } from '../../src/index.js';
import { journalOperationOf, type JournalOperation } from '../../src/journal/index.js';
import { countCalls, createJournalTable, localClient } from '../support/dynamodb.js';
import { RecordAttribute } from '../../src/entries/journal.js';

describe('DynamoDBJournal clients', () => {
  it('works the same through a DocumentClient built on the base client', async () => {
    const client = localClient();
    const tableName = await createJournalTable(client);
    const doc = DynamoDBDocumentClient.from(client);
    const journal = new DynamoDBJournal({ tableName, client: doc });
    const reserved = await journal.reserve({ pk: 'req#-#op#doc', fingerprint: 'f', leaseMs: 1000, ttlSeconds: 60 });
    if (!reserved.reserved) throw new Error('expected a reservation');
    await journal.complete({
      pk: 'req#-#op#doc',
      leaseToken: reserved.record.leaseToken,
      response: { ok: true },
      ttlSeconds: 60,
    });
    const again = await journal.reserve({ pk: 'req#-#op#doc', fingerprint: 'f', leaseMs: 1000, ttlSeconds: 60 });
    expect(again).toMatchObject({
      reserved: false,
      record: { status: RecordStatus.completed, response: { value: { ok: true } } },
    });
  });

  it('builds its own client from the environment when given none, resolving each command’s middleware once', async () => {
    // The global setup points AWS_ENDPOINT_URL_DYNAMODB at DynamoDB Local, as a function's environment names its Region.
    const tableName = await createJournalTable(localClient());
    const journal = new DynamoDBJournal({ tableName });
    const own = (journal as unknown as { client: DynamoDBClient }).client;
    expect(own.config.cacheMiddleware).toBe(true);
    for (const key of ['own-1', 'own-2']) {
      const pk = `req#-#op#${key}`;
      const reserved = await journal.reserve({ pk, fingerprint: 'f', leaseMs: 1000, ttlSeconds: 60 });
      if (!reserved.reserved) throw new Error('expected a reservation');
      await journal.complete({ pk, leaseToken: reserved.record.leaseToken, response: key, ttlSeconds: 60 });
      // The second key's calls reuse the handlers the first key's built, and still reach their own items.
      expect(await journal.reserve({ pk, fingerprint: 'f', leaseMs: 1000, ttlSeconds: 60 })).toMatchObject({
        reserved: false,
        record: { status: RecordStatus.completed, response: { value: key } },
      });
    }
  });

  it('sends low-level item commands, one per journal call', async () => {
    const client = localClient();
    const tableName = await createJournalTable(client);
    const counter = countCalls(client);
    const journal = new DynamoDBJournal({ tableName, client });
    const reserved = await journal.reserve({ pk: 'req#-#op#calls', fingerprint: 'f', leaseMs: 1000, ttlSeconds: 60 });
    if (!reserved.reserved) throw new Error('expected a reservation');
    await journal.complete({
      pk: 'req#-#op#calls',
      leaseToken: reserved.record.leaseToken,
      response: 'x',
      ttlSeconds: 60,
    });
    expect(Object.fromEntries(counter.byCommand)).toEqual({ PutItemCommand: 1, UpdateItemCommand: 1 });
  });

  it.each(['a DynamoDBClient', 'a DynamoDBDocumentClient', 'a client caching its middleware'] as const)(
    'tags every request with the journal operation that sent it, whatever its expression, through %s',
    async (kind) => {
      const client = localClient({ cacheMiddleware: kind === 'a client caching its middleware' });
      const tableName = await createJournalTable(client);
      const seen: Array<[JournalOperation | undefined, string]> = [];
      const attributes = new Set<string>();
      client.middlewareStack.add(
        (next, context) => (args) => {
          seen.push([journalOperationOf(args), String(context.commandName)]);
          for (const name of attributesNamed(args.input as ExpressionInput)) attributes.add(name);
          return next(args);
        },
        { step: 'finalizeRequest', name: 'recordOperations' },
      );
      let now = Date.now();
      const journalClient = kind === 'a DynamoDBDocumentClient' ? DynamoDBDocumentClient.from(client) : client;
      const journal = new DynamoDBJournal({ tableName, client: journalClient, clock: () => now });
      const pk = 'req#-#op#tags';
      const first = await journal.reserve({ pk, fingerprint: 'f', leaseMs: 1000, ttlSeconds: 60 });
      if (!first.reserved) throw new Error('expected a reservation');
      await journal.heartbeat(pk, first.record.leaseToken, 1000);
      await journal.recordEvidence(pk, first.record.leaseToken, { chargeId: 'ch_1' });
      await journal.beginEffect(pk, first.record.leaseToken, 'charge');
      now += 2000;
      const taken = await journal.takeOver({ pk, expectedToken: first.record.leaseToken, leaseMs: 1000 });
      now += 2000;
      await journal.markAbandonedUnknown(pk, taken.leaseToken);
      // Incompressible, so the resolution's response is split into chunk items.
      const large = randomBytes(400 * 1024).toString('base64');
      await journal.resolve(pk, { outcome: 'completed', response: { large }, ttlSeconds: 60 });
      await journal.get(pk);
      const other = await journal.reserve({ pk: 'req#-#op#tags-2', fingerprint: 'f', leaseMs: 1000, ttlSeconds: 60 });
      if (!other.reserved) throw new Error('expected a reservation');
      await journal.markUnknown(other.record.pk, other.record.leaseToken);
      await journal.resolve(other.record.pk, { outcome: 'released' });
      const third = await journal.reserve({ pk: 'req#-#op#tags-3', fingerprint: 'f', leaseMs: 1000, ttlSeconds: 60 });
      if (!third.reserved) throw new Error('expected a reservation');
      await journal.release(third.record.pk, third.record.leaseToken);
      await journal.commitStaged({
        pk: 'req#-#op#tags-4',
        fingerprint: 'f',
        commitToken: randomUUID(),
        createdAtEpochMs: now,
        response: 'ok',
        ttlSeconds: 60,
        writes: { staged: [], uniqueClaims: [], outbox: [] },
      });
      const fourth = await journal.reserve({ pk: 'req#-#op#tags-5', fingerprint: 'f', leaseMs: 1000, ttlSeconds: 60 });
      if (!fourth.reserved) throw new Error('expected a reservation');
      await journal.complete({
        pk: fourth.record.pk,
        leaseToken: fourth.record.leaseToken,
        response: 'done',
        ttlSeconds: 60,
        writes: {
          staged: [],
          uniqueClaims: [{ name: 'tag', value: 'five' }],
          outbox: [],
        },
      });
      expect(seen).toEqual([
        ['reserve', 'PutItemCommand'],
        ['heartbeat', 'UpdateItemCommand'],
        ['recordEvidence', 'UpdateItemCommand'],
        ['beginEffect', 'UpdateItemCommand'],
        ['takeOver', 'UpdateItemCommand'],
        ['markAbandonedUnknown', 'UpdateItemCommand'],
        ['writeChunks', 'BatchWriteItemCommand'],
        ['resolve', 'UpdateItemCommand'],
        ['get', 'GetItemCommand'],
        ['readChunks', 'BatchGetItemCommand'],
        ['reserve', 'PutItemCommand'],
        ['markUnknown', 'UpdateItemCommand'],
        ['resolve', 'DeleteItemCommand'],
        ['reserve', 'PutItemCommand'],
        ['release', 'DeleteItemCommand'],
        // Nothing staged: the record commits alone with a conditional put.
        ['commitStaged', 'PutItemCommand'],
        ['reserve', 'PutItemCommand'],
        ['complete', 'TransactWriteItemsCommand'],
      ]);
      // Every attribute an expression names is one of the schema's: the table and the runtime cannot drift.
      expect(attributes.size).toBeGreaterThan(10);
      expect([...attributes].filter((name) => !(Object.values(RecordAttribute) as string[]).includes(name))).toEqual(
        [],
      );
    },
  );
});

interface Expressions {
  readonly UpdateExpression?: string;
  readonly ConditionExpression?: string;
  readonly ExpressionAttributeNames?: Record<string, string>;
}
type ExpressionInput = Expressions & { readonly TransactItems?: ReadonlyArray<Record<string, Expressions>> };

/** The top-level attribute names an item command's expressions use, placeholders resolved (`evidence.#e0` is `evidence`). */
function attributesNamed(input: ExpressionInput): string[] {
  const parts = [input, ...(input.TransactItems ?? []).flatMap((entry) => Object.values(entry))];
  return parts.flatMap(({ UpdateExpression = '', ConditionExpression = '', ExpressionAttributeNames = {} }) => {
    const text = `${UpdateExpression} ${ConditionExpression}`
      .replace(/:\w+/g, ' ')
      .replace(/attribute_not_exists|attribute_exists|\b(SET|REMOVE|AND|OR|NOT)\b/g, ' ');
    const paths = text.match(/[#A-Za-z_][\w#.]*/g) ?? [];
    return paths.map((path) => {
      const first = path.split('.')[0];
      return first.startsWith('#') ? ExpressionAttributeNames[first] : first;
    });
  });
}

import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { randomBytes } from 'node:crypto';
import { DynamoDBJournal, MemoryJournal, makeIdempotent } from '../../src/index.js';
import { countCalls, createJournalTable, localClient } from '../support/dynamodb.js';
import { httpEvent } from '../support/lambda.js';
import { guard } from '../http/guarded-handler.js';
import { requestPk } from '../../src/entries/journal.js';

describe('large responses on DynamoDB Local', () => {
  const client = localClient();
  const doc = DynamoDBDocumentClient.from(client);
  let journal: DynamoDBJournal;
  beforeAll(async () => {
    journal = new DynamoDBJournal({ tableName: await createJournalTable(client), client });
  });
  const item = async (pk: string) =>
    (await doc.send(new GetCommand({ TableName: journal.tableName, Key: { pk }, ConsistentRead: true }))).Item;

  it('replays a 5 MB response with identical bytes, split across chunk items', async () => {
    // Base64 of random bytes barely compresses, so it must be chunked.
    const body = randomBytes(3_900_000).toString('base64');
    expect(body.length).toBeGreaterThan(5_000_000);
    let runs = 0;
    const handler = guard(async () => {
      runs++;
      return { statusCode: 200, headers: { 'content-type': 'application/octet-stream' }, body, isBase64Encoded: true };
    }, journal);
    await handler(httpEvent({ key: 'big-5mb', body: {} }));
    const counter = countCalls(client);
    const replay = await guard(
      handler as never,
      new DynamoDBJournal({ tableName: journal.tableName, client }),
    )(httpEvent({ key: 'big-5mb', body: {} }));
    expect(replay.body).toBe(body);
    expect(replay.isBase64Encoded).toBe(true);
    expect(runs).toBe(1);
    expect(counter.byCommand.get('BatchGetItemCommand')).toBe(1);
    expect((await item(requestPk('-', 'POST /payments', 'big-5mb')))?.responseEncoding).toBe('chunked');
  }, 60_000);

  it('stores a 1 MB JSON response gzip-compressed in the record', async () => {
    const rows = Array.from({ length: 15_000 }, (_, i) => ({
      id: `row-${i}`,
      amount: i * 100,
      currency: 'EUR',
      status: 'settled',
    }));
    const body = JSON.stringify(rows);
    expect(body.length).toBeGreaterThan(700_000);
    const handler = guard(
      async () => ({ statusCode: 200, headers: { 'content-type': 'application/json' }, body }),
      journal,
    );
    await handler(httpEvent({ key: 'big-1mb', body: {} }));
    const stored = await item(requestPk('-', 'POST /payments', 'big-1mb'));
    expect(stored?.responseEncoding).toBe('gzip');
    expect((stored?.response as Uint8Array).byteLength).toBeLessThan(body.length / 5);
    expect((await handler(httpEvent({ key: 'big-1mb', body: {} }))).body).toBe(body);
  });

  it('keeps a small response as plain JSON', async () => {
    await guard(async () => ({ statusCode: 201, body: 'small' }), journal)(httpEvent({ key: 'small-1', body: {} }));
    expect((await item(requestPk('-', 'POST /payments', 'small-1')))?.responseEncoding).toBe('json');
  });

  it('never re-runs the effect or leaves the key stuck when a result cannot be stored', async () => {
    const memory = new MemoryJournal();
    let runs = 0;
    const huge = makeIdempotent(
      async () => {
        runs++;
        return 'x'.repeat(8 * 1024 * 1024);
      },
      { journal: memory, operation: 'huge', key: () => 'huge-1' },
    );
    const first = await huge(undefined as never);
    expect(first.length).toBe(8 * 1024 * 1024);
    const second = await huge(undefined as never).catch((error) => error);
    expect(runs).toBe(1);
    expect(second).toMatchObject({ code: 'response-too-large' });
  });
});

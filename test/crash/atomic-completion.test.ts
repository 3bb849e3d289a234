import { DynamoDBDocumentClient, GetCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { DynamoDBJournal, RecordStatus, idempotencyOf, type TransactItem } from '../../src/index.js';
import { createJournalTable, createTable, localClient } from '../support/dynamodb.js';
import { httpEvent } from '../support/lambda.js';
import { guard } from '../http/guarded-handler.js';
import { requestPk, uniquePk } from '../../src/entries/journal.js';

describe('atomic completion on DynamoDB Local', () => {
  const client = localClient();
  const doc = DynamoDBDocumentClient.from(client);
  let journal: DynamoDBJournal;
  let payments: string;
  beforeAll(async () => {
    journal = new DynamoDBJournal({ tableName: await createJournalTable(client), client });
    payments = await createTable(client, 'payments');
  });
  const read = async (table: string, pk: string) =>
    (await doc.send(new GetCommand({ TableName: table, Key: { pk }, ConsistentRead: true }))).Item;
  const outboxCount = async () =>
    (
      await doc.send(
        new ScanCommand({
          TableName: journal.tableName,
          FilterExpression: 'begins_with(pk, :o)',
          ExpressionAttributeValues: { ':o': 'outbox#' },
        }),
      )
    ).Items?.length ?? 0;

  /** A refund handler that stages its row, publishes an event and claims the payment's refund. */
  const refund = (paymentId: string, extra: TransactItem[] = []) =>
    guard(async (_event: unknown, context?: unknown) => {
      const scope = idempotencyOf(context as object);
      scope.stage(
        { Put: { TableName: payments, Item: { pk: `refund#${paymentId}#${scope.deriveKey('row')}`, paymentId } } },
        ...extra,
      );
      const eventId = scope.publish({ type: 'payment.refunded', detail: { paymentId } });
      scope.claimUnique('refund', paymentId);
      return { statusCode: 201, body: JSON.stringify({ eventId }) };
    }, journal);

  it('commits the staged row, the outbox event, the claim and the record together', async () => {
    const answer = await refund('pay_1')(httpEvent({ key: 'refund-1', body: { paymentId: 'pay_1' } }));
    expect(answer.statusCode).toBe(201);
    const { eventId } = JSON.parse(answer.body);
    expect(await read(journal.tableName, `outbox#${eventId}`)).toMatchObject({
      kind: 'outbox',
      type: 'payment.refunded',
      detail: '{"paymentId":"pay_1"}',
    });
    expect(await read(journal.tableName, uniquePk('refund', 'pay_1'))).toMatchObject({
      claimedBy: requestPk('-', 'POST /payments', 'refund-1'),
    });
  });

  it('refuses a second key claiming the same value with a 409 problem, committing nothing and releasing the key', async () => {
    const before = await outboxCount();
    const answer = await refund('pay_2')(httpEvent({ key: 'refund-2a', body: { paymentId: 'pay_2' } }));
    const conflict = await refund('pay_2')(httpEvent({ key: 'refund-2b', body: { paymentId: 'pay_2' } }));
    expect(answer.statusCode).toBe(201);
    expect(conflict.statusCode).toBe(409);
    expect(JSON.parse(conflict.body).type).toBe('urn:idemkit:problem:uniqueness-conflict');
    expect(await outboxCount()).toBe(before + 1);
    expect(await journal.get(requestPk('-', 'POST /payments', 'refund-2b'))).toBeUndefined();
  });

  it('applies none of the writes when a staged write’s own condition fails', async () => {
    const before = await outboxCount();
    const failing: TransactItem = {
      Put: { TableName: payments, Item: { pk: 'must-exist' }, ConditionExpression: 'attribute_exists(pk)' },
    };
    const answer = await refund('pay_3', [failing])(httpEvent({ key: 'refund-3', body: { paymentId: 'pay_3' } }));
    expect(answer.statusCode).toBe(409);
    expect(JSON.parse(answer.body).type).toBe('urn:idemkit:problem:write-conflict');
    expect(await outboxCount()).toBe(before);
    expect(await read(journal.tableName, uniquePk('refund', 'pay_3'))).toBeUndefined();
    const rows = await doc.send(
      new ScanCommand({
        TableName: payments,
        FilterExpression: 'paymentId = :p',
        ExpressionAttributeValues: { ':p': 'pay_3' },
      }),
    );
    expect(rows.Items).toHaveLength(0);
  });

  it('applies none of the writes when the lease was lost', async () => {
    const before = await outboxCount();
    const handler = guard(
      async (_event: unknown, context?: unknown) => {
        const scope = idempotencyOf(context as object);
        scope.stage({ Put: { TableName: payments, Item: { pk: 'lost-lease-row' } } });
        scope.publish({ type: 'x', detail: {} });
        await new Promise((resolve) => setTimeout(resolve, 400));
        return { statusCode: 201, body: 'stale' };
      },
      journal,
      { leaseMs: 200 },
    );
    const stale = handler(httpEvent({ key: 'lost-1', body: {} }));
    await new Promise((resolve) => setTimeout(resolve, 250));
    const fresh = await guard(
      async () => ({ statusCode: 201, body: 'fresh' }),
      journal,
    )(httpEvent({ key: 'lost-1', body: {} }));
    expect(fresh.body).toBe('fresh');
    const answer = await stale;
    expect(answer).toMatchObject({ statusCode: 201, body: 'fresh', headers: { 'Idempotent-Replayed': 'true' } });
    expect(await read(payments, 'lost-lease-row')).toBeUndefined();
    expect(await outboxCount()).toBe(before);
    expect((await journal.get(requestPk('-', 'POST /payments', 'lost-1')))?.status).toBe(RecordStatus.completed);
  });
});

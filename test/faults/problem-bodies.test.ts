import { PutCommand, DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import middy from '@middy/core';
import { DynamoDBJournal, httpIdempotency, type HttpIdempotencyOptions } from '../../src/index.js';
import { createJournalTable, localClient } from '../support/dynamodb.js';
import { httpEvent, lambdaContext } from '../support/lambda.js';
import { DENIED_ACCOUNT_ID, injectFault } from './support/fault-injection.js';
import { requestPk } from '../../src/entries/journal.js';

/** A logger that keeps the guard's log lines, so a test can see what reached the log and not the caller. */
function keptLog() {
  const lines: Array<{ message: string; fields: Record<string, unknown> }> = [];
  const keep = (message: string, fields: Record<string, unknown>) => lines.push({ message, fields });
  return { lines, logger: { info: keep, error: keep } as unknown as HttpIdempotencyOptions['logger'] };
}

type Answer = { statusCode: number; headers: Record<string, string>; body: string };

/**
 * Problem bodies say what the caller can act on and carry `instance`, the request id of the
 * attempt's log line; text from the AWS SDK or the server (endpoints, ARNs, account ids, table
 * names, record keys) reaches the log line only.
 */
describe('problem bodies never carry text from the SDK or the server', () => {
  it('answers a journal refused by IAM with 503 journal-unavailable, its words in the log and not in the body', async () => {
    const client = localClient({ maxAttempts: 1 });
    const tableName = await createJournalTable(client);
    injectFault(client, 'reserve', { kind: 'access-denied' });
    const log = keptLog();
    const handler = middy(async () => ({ statusCode: 201, body: '{}' })).use(
      httpIdempotency({ journal: new DynamoDBJournal({ tableName, client }), logger: log.logger }),
    );
    const context = lambdaContext();

    const answer = (await handler(httpEvent({ key: 'denied-1', body: { amount: 5 } }) as never, context)) as Answer;

    expect(answer.statusCode).toBe(503);
    expect(answer.headers['retry-after']).toBe('1');
    const problem = JSON.parse(answer.body);
    expect(problem).toEqual({
      type: 'urn:idemkit:problem:journal-unavailable',
      title: 'The idempotency journal is unavailable',
      status: 503,
      detail: expect.stringContaining('Retry it with the same Idempotency-Key'),
      instance: context.awsRequestId,
    });
    for (const secret of [DENIED_ACCOUNT_ID, 'arn:', 'prod-idempotency-journal', 'AccessDenied', 'dynamodb:'])
      expect(answer.body).not.toContain(secret);
    const line = log.lines.find((entry) => entry.fields.request_id === context.awsRequestId);
    expect(line?.fields.idempotency_status).toBe('journal_unavailable');
    expect(String((line?.fields.error as Error | undefined)?.message)).toContain(DENIED_ACCOUNT_ID);
  });

  it('answers a journal on an unreachable endpoint with 503, naming no endpoint', async () => {
    const client = localClient({ endpoint: 'http://127.0.0.1:9', maxAttempts: 1 });
    const handler = middy(async () => ({ statusCode: 201, body: '{}' })).use(
      httpIdempotency({
        journal: new DynamoDBJournal({ tableName: 'journal-unreachable', client }),
        logger: keptLog().logger,
      }),
    );

    const answer = (await handler(httpEvent({ key: 'unreachable-1', body: {} }) as never, lambdaContext())) as Answer;

    expect(answer.statusCode).toBe(503);
    expect(answer.body).not.toMatch(/127\.0\.0\.1|ECONNREFUSED|journal-unreachable/);
  });

  it('answers an unreadable record with 500 record-unreadable, naming neither its key nor its contents', async () => {
    const client = localClient();
    const tableName = await createJournalTable(client);
    const pk = requestPk('-', 'POST /payments', 'unreadable-1');
    await DynamoDBDocumentClient.from(client).send(
      new PutCommand({ TableName: tableName, Item: { pk, status: 'SHIPPED', fingerprint: 'f', leaseToken: 't' } }),
    );
    const handler = middy(async () => ({ statusCode: 201, body: '{}' })).use(
      httpIdempotency({ journal: new DynamoDBJournal({ tableName, client }), logger: keptLog().logger }),
    );
    const context = lambdaContext();

    const answer = (await handler(httpEvent({ key: 'unreadable-1', body: {} }) as never, context)) as Answer;

    expect(answer.statusCode).toBe(500);
    const problem = JSON.parse(answer.body);
    expect(problem.type).toBe('urn:idemkit:problem:record-unreadable');
    expect(problem.instance).toBe(context.awsRequestId);
    expect(answer.body).not.toMatch(/SHIPPED|req#|unreadable-1/);
  });

  it.each([
    ['a missing key (400)', undefined, 400],
    ['a malformed key (400)', 'has space', 400],
  ])('carries the request id as instance on %s', async (_label, key, status) => {
    const { journal } = { journal: new DynamoDBJournal({ tableName: 'unused-table', client: localClient() }) };
    const handler = middy(async () => ({ statusCode: 201, body: '{}' })).use(
      httpIdempotency({ journal, logger: keptLog().logger }),
    );
    const context = lambdaContext();

    const answer = (await handler(httpEvent({ key, body: {} }) as never, context)) as Answer;

    expect(answer.statusCode).toBe(status);
    expect(JSON.parse(answer.body).instance).toBe(context.awsRequestId);
  });
});

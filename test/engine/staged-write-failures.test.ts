import { Logger } from '@aws-lambda-powertools/logger';
import { PutItemCommand, ResourceNotFoundException, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import middy from '@middy/core';
import { createOrderEventsConsumer } from '../../src/handlers/factories/order-events-consumer.js';
import { RecordStatus, StagedWriteError, httpIdempotency, idempotencyOf, makeIdempotent } from '../../src/index.js';
import { createTable } from '../support/dynamodb.js';
import { httpEvent, lambdaContext } from '../support/lambda.js';
import { sqsRecord } from '../support/sqs.js';
import { localJournal } from '../sqs/consumer-fixtures.js';
import { messagePk } from '../../src/entries/journal.js';

/** An `order.confirmed` message as the outbox dispatcher sends it. */
function orderConfirmed(eventId: string) {
  const body = JSON.stringify({
    eventId,
    type: 'order.confirmed',
    detail: { paymentId: 'pay_1', items: [{ sku: 'sku-red-mug', quantity: 2 }] },
    occurredAt: '2025-03-01T10:00:00.000Z',
  });
  return sqsRecord(body, { attributes: { eventId } });
}

/** A logger whose lines are kept, by message. */
function keptLogger() {
  const logger = new Logger({ serviceName: 'test' });
  const error = jest.spyOn(logger, 'error');
  const info = jest.spyOn(logger, 'info');
  const lines = (message: string) =>
    [...error.mock.calls, ...info.mock.calls]
      .filter((call) => call[0] === message)
      .map((call) => call[1] as unknown as Record<string, unknown>);
  return { logger, lines };
}

describe('a staged write refused on its own table', () => {
  it('releases the example order-events consumer record when the stock table is missing, logs the real cause and lets a redelivery run again', async () => {
    const { journal } = await localJournal();
    const { logger, lines } = keptLogger();
    const consumer = createOrderEventsConsumer({
      journal,
      stockTable: 'stock-table-that-does-not-exist',
      guardOptions: { logger },
    });
    const record = orderConfirmed('evt-missing-stock');

    const first = await consumer({ Records: [record] }, lambdaContext());
    const redelivery = await consumer({ Records: [record] }, lambdaContext());

    expect(first.batchItemFailures).toEqual([{ itemIdentifier: record.messageId }]);
    expect(redelivery.batchItemFailures).toEqual([{ itemIdentifier: record.messageId }]);
    expect(await journal.get(messagePk('order-events', 'evt-missing-stock'))).toBeUndefined();
    const reported = lines('sqs record reported as failed');
    expect(reported.map((line) => line.idempotency_status)).toEqual(['released', 'released']);
    expect(reported[0]).toMatchObject({
      error_code: 'staged-write-failed',
      reason: expect.stringMatching(/table stock-table-that-does-not-exist.*ResourceNotFoundException/),
    });
    expect(lines('idempotency attempt failed')[0]).toMatchObject({
      idempotency_status: 'released',
      error: expect.any(StagedWriteError),
    });
  });

  it('commits the stock reservation once the table exists', async () => {
    const { journal, client } = await localJournal();
    const stockTable = await createTable(client, 'stock', 'sku');
    await client.send(
      new PutItemCommand({ TableName: stockTable, Item: { sku: { S: 'sku-red-mug' }, available: { N: '5' } } }),
    );
    const consumer = createOrderEventsConsumer({ journal, stockTable });

    const answer = await consumer({ Records: [orderConfirmed('evt-with-stock')] }, lambdaContext());

    expect(answer.batchItemFailures).toEqual([]);
    expect((await journal.get(messagePk('order-events', 'evt-with-stock')))?.status).toBe(RecordStatus.completed);
  });

  it('answers a guarded HTTP handler whose staged update does not apply with a 500 problem, and runs it again on retry', async () => {
    const { journal, client } = await localJournal();
    const stockTable = await createTable(client, 'stock', 'sku');
    let runs = 0;
    const handler = middy(async (_event: unknown, context: { awsRequestId: string }) => {
      runs++;
      // The item has no `available` attribute: DynamoDB refuses the update expression.
      idempotencyOf(context).stage({
        Update: {
          TableName: stockTable,
          Key: { sku: 'absent' },
          UpdateExpression: 'SET available = available - :q',
          ExpressionAttributeValues: { ':q': 1 },
        },
      });
      return { statusCode: 201, body: '{}' };
    }).use(httpIdempotency({ journal }));
    const send = () =>
      handler(httpEvent({ key: 'stage-validation', body: { sku: 'absent' } }) as never, lambdaContext()).catch(
        (error: unknown) => error,
      );

    const first = await send();
    const retry = await send();

    // A 500 problem (DESIGN: the handler’s error, never journal-unavailable); which write was refused goes to the log.
    for (const answer of [first, retry] as Array<{ statusCode: number; body: string }>) {
      expect(answer.statusCode).toBe(500);
      expect(JSON.parse(answer.body)).toMatchObject({
        type: 'urn:idemkit:problem:staged-write-failed',
        instance: expect.any(String),
      });
    }
    expect(runs).toBe(2);
    expect(await journal.get('req#-#POST /payments#stage-validation')).toBeUndefined();
  });

  it('marks the record UNKNOWN instead of releasing it when the function had begun its effect', async () => {
    const { journal } = await localJournal();
    const charge = makeIdempotent(
      async (_input: { key: string }, context) => {
        const guard = idempotencyOf(context);
        await guard.beginEffect('charge');
        guard.stage({ Put: { TableName: 'ledger-table-that-does-not-exist', Item: { pk: 'entry-1' } } });
        return 'charged';
      },
      { journal, operation: 'charge', key: (input) => input.key },
    );

    await expect(charge({ key: 'effect-1' })).rejects.toBeInstanceOf(StagedWriteError);

    expect((await journal.get('req#-#charge#effect-1'))?.status).toBe(RecordStatus.unknown);
  });

  it('reads the cancellation reason of the staged item DynamoDB names, as the real service reports a refused expression', async () => {
    const { journal, client } = await localJournal();
    const stockTable = await createTable(client, 'stock', 'sku');
    // DynamoDB Local refuses such a transaction as a whole; the service cancels it with a reason per item.
    client.middlewareStack.add(
      (next, context) => async (args) => {
        if (context.commandName !== 'TransactWriteItemsCommand') return next(args);
        throw new TransactionCanceledException({
          message:
            'Transaction cancelled, please refer cancellation reasons for specific reasons [None, None, ValidationError]',
          $metadata: { httpStatusCode: 400 },
          CancellationReasons: [
            { Code: 'None' },
            { Code: 'None' },
            { Code: 'ValidationError', Message: 'An operand in the update expression has an incorrect data type' },
          ],
        });
      },
      { step: 'finalizeRequest', name: 'cancel-with-validation-error' },
    );
    const reserve = makeIdempotent(
      async (_input: { key: string }, context) => {
        const guard = idempotencyOf(context);
        guard.stage({ Put: { TableName: stockTable, Item: { sku: 'a', available: 1 } } });
        guard.stage({
          Update: {
            TableName: stockTable,
            Key: { sku: 'b' },
            UpdateExpression: 'SET available = available - :q',
            ExpressionAttributeValues: { ':q': 1 },
          },
        });
        return 'reserved';
      },
      { journal, operation: 'reserve', key: (input) => input.key },
    );

    const error = await reserve({ key: 'reasons-1' }).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(StagedWriteError);
    expect((error as StagedWriteError).item).toBe(`staged write #1 (table ${stockTable})`);
    expect((error as StagedWriteError).reason).toBe(
      'ValidationError: An operand in the update expression has an incorrect data type',
    );
    expect(await journal.get('req#-#reserve#reasons-1')).toBeUndefined();
  });

  it('still answers 503 journal-unavailable when a transaction holding only journal items meets a missing table', async () => {
    const { journal, client } = await localJournal();
    client.middlewareStack.add(
      (next, context) => async (args) => {
        if (context.commandName !== 'TransactWriteItemsCommand') return next(args);
        throw new ResourceNotFoundException({
          message: 'Requested resource not found',
          $metadata: { httpStatusCode: 400 },
        });
      },
      { step: 'finalizeRequest', name: 'journal-table-gone' },
    );
    const handler = middy(async (_event: unknown, context: { awsRequestId: string }) => {
      idempotencyOf(context).publish({ type: 'payment.created', detail: { id: 'pay_1' } });
      return { statusCode: 201, body: '{}' };
    }).use(httpIdempotency({ journal }));

    const answer = await handler(httpEvent({ key: 'journal-only', body: {} }) as never, lambdaContext());

    expect(answer.statusCode).toBe(503);
    expect(JSON.parse(answer.body).type).toBe('urn:idemkit:problem:journal-unavailable');
  });
});

/**
 * Failures answered as the fault of the party that caused them: a misnamed journal table is the
 * journal's outage (503, nothing committed), never a staged write's; a staged item DynamoDB
 * cannot take is the handler's error (500, the key released), never a journal outage.
 */
import { GetItemCommand } from '@aws-sdk/client-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import middy from '@middy/core';
import {
  DynamoDBJournal,
  httpIdempotency,
  idempotencyOf,
  JournalUnavailableError,
  makeIdempotent,
  MetricName,
  StagedWriteError,
  type HttpIdempotencyOptions,
  type HttpResponse,
} from '../../src/index.js';
import { createJournalTable, createTable, localClient } from '../support/dynamodb.js';
import { httpEvent, lambdaContext } from '../support/lambda.js';
import { metricCounter } from '../sqs/consumer-fixtures.js';
import { requestPk } from '../../src/entries/journal.js';

const client = localClient();
const body = { amount: 1250, currency: 'EUR' };

/** Money keeps its cents private: the SDK cannot marshal it. */
class Money {
  readonly #cents: number;
  constructor(cents: number) {
    this.#cents = cents;
  }
  cents(): number {
    return this.#cents;
  }
}

/** A handler that stages one payment row built by `row`, counting its runs. */
function stagingHandler(paymentsTable: string, row: (id: string) => Record<string, unknown>) {
  const runs = { count: 0 };
  const handler = async (_event: unknown, context: object) => {
    runs.count++;
    const id = `pay_${runs.count}`;
    idempotencyOf(context).stage({ Put: { TableName: paymentsTable, Item: row(id) } });
    return { statusCode: 201, body: JSON.stringify({ id }) };
  };
  return { runs, handler };
}

async function itemIn(tableName: string, pk: string) {
  return (await client.send(new GetItemCommand({ TableName: tableName, Key: marshall({ pk }) }))).Item;
}

describe('a journal table that does not exist, with effects: staged-only', () => {
  it('answers 503 journal-unavailable with Retry-After and commits nothing of the handler’s writes', async () => {
    const paymentsTable = await createTable(client, 'payments');
    const journal = new DynamoDBJournal({ tableName: 'journal-that-does-not-exist', client });
    const { runs, handler } = stagingHandler(paymentsTable, (pk) => ({ pk, amount: 1250 }));
    const guarded = middy(handler).use(httpIdempotency({ journal, effects: 'staged-only' }));

    const answer = await guarded(httpEvent({ key: 'missing-journal', body }), lambdaContext());

    expect(answer).toMatchObject({ statusCode: 503, headers: { 'retry-after': '1' } });
    expect(JSON.parse(answer.body).type).toBe('urn:idemkit:problem:journal-unavailable');
    expect(runs.count).toBe(1);
    expect(await itemIn(paymentsTable, 'pay_1')).toBeUndefined();
  });

  it('rejects makeIdempotent with JournalUnavailableError, not StagedWriteError', async () => {
    const paymentsTable = await createTable(client, 'payments');
    const journal = new DynamoDBJournal({ tableName: 'journal-that-does-not-exist', client });
    const guarded = makeIdempotent(
      async (input: { id: string }, context) => {
        idempotencyOf(context).stage({ Put: { TableName: paymentsTable, Item: { pk: input.id } } });
        return input.id;
      },
      { journal, operation: 'pay', key: (input) => input.id, effects: 'staged-only' },
    );

    await expect(guarded({ id: 'fn-missing-journal' })).rejects.toBeInstanceOf(JournalUnavailableError);
  });

  it('still blames the staged write when it is the handler’s table that is missing', async () => {
    const tableName = await createJournalTable(client);
    const journal = new DynamoDBJournal({ tableName, client });
    const guarded = makeIdempotent(
      async (input: { id: string }, context) => {
        idempotencyOf(context).stage({ Put: { TableName: 'payments-that-do-not-exist', Item: { pk: input.id } } });
        return input.id;
      },
      { journal, operation: 'pay', key: (input) => input.id, effects: 'staged-only' },
    );

    const error = await guarded({ id: 'fn-missing-payments' }).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(StagedWriteError);
    expect((error as StagedWriteError).item).toMatch(/payments-that-do-not-exist/);
  });
});

describe.each<[string, Partial<HttpIdempotencyOptions>]>([
  ['the leased protocol', {}],
  ['effects: staged-only', { effects: 'staged-only' }],
])('a staged item the SDK cannot marshal, under %s', (_mode, modeOptions) => {
  it.each<[string, (pk: string) => Record<string, unknown>]>([
    ['a Date attribute', (pk) => ({ pk, at: new Date(0) })],
    ['a class instance', (pk) => ({ pk, amount: new Money(1250) })],
  ])('is the handler’s error (%s): 500 problem, nothing committed, the key released', async (_kind, row) => {
    const tableName = await createJournalTable(client);
    const paymentsTable = await createTable(client, 'payments');
    const journal = new DynamoDBJournal({ tableName, client });
    const metrics = metricCounter();
    try {
      const { runs, handler } = stagingHandler(paymentsTable, row);
      const guarded = middy(handler).use(httpIdempotency({ journal, ...modeOptions }));

      const first = (await guarded(
        httpEvent({ key: 'unmarshallable', body }),
        lambdaContext(),
      )) as Required<HttpResponse>;
      const retry = await guarded(httpEvent({ key: 'unmarshallable', body }), lambdaContext());

      expect(first.statusCode).toBe(500);
      expect(first.headers['retry-after']).toBeUndefined();
      const problem = JSON.parse(first.body);
      expect(problem.type).toBe('urn:idemkit:problem:staged-write-failed');
      // Which write and which table go to the log line; the caller learns only that nothing committed.
      expect(first.body).not.toContain(paymentsTable);
      // Released: the retry runs the handler again instead of meeting 409 for the whole lease.
      expect(retry.statusCode).toBe(500);
      expect(runs.count).toBe(2);
      expect(await itemIn(tableName, requestPk('-', 'POST /payments', 'unmarshallable'))).toBeUndefined();
      expect(metrics.count(MetricName.journalError)).toBe(0);
      expect(metrics.count(MetricName.released)).toBe(2);
    } finally {
      metrics.restore();
    }
  });
});

describe('a staged item over DynamoDB’s 400 KB item limit', () => {
  it('is refused where it is staged, naming the write', async () => {
    const tableName = await createJournalTable(client);
    const journal = new DynamoDBJournal({ tableName, client });
    const guarded = makeIdempotent(
      async (input: { id: string }, context) => {
        idempotencyOf(context).stage({
          Put: { TableName: 'payments', Item: { pk: input.id, blob: 'x'.repeat(410_000) } },
        });
        return input.id;
      },
      { journal, operation: 'pay', key: (input) => input.id },
    );

    const error = await guarded({ id: 'too-big' }).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(StagedWriteError);
    expect((error as Error).message).toMatch(/over DynamoDB's 409600-byte item limit/);
    expect(await journal.get(requestPk('-', 'pay', 'too-big'))).toBeUndefined();
  });
});

it('keeps the record of an earlier attempt when its staged write is refused after beginEffect', async () => {
  const tableName = await createJournalTable(client);
  const journal = new DynamoDBJournal({ tableName, client });
  const guarded = makeIdempotent(
    async (input: { id: string }, context) => {
      const scope = idempotencyOf(context);
      await scope.beginEffect('charge');
      scope.stage({ Put: { TableName: 'payments', Item: { pk: input.id, at: new Date(0) } } });
      return input.id;
    },
    { journal, operation: 'pay', key: (input) => input.id },
  );

  await expect(guarded({ id: 'after-effect' })).rejects.toBeInstanceOf(StagedWriteError);
  expect((await journal.get(requestPk('-', 'pay', 'after-effect')))?.status).toBe('UNKNOWN');
});

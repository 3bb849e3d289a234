import { CreateTableCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { IdempotencyConfig, makeIdempotent as powertoolsMakeIdempotent } from '@aws-lambda-powertools/idempotency';
import { DynamoDBPersistenceLayer } from '@aws-lambda-powertools/idempotency/dynamodb';
import { makeHandlerIdempotent } from '@aws-lambda-powertools/idempotency/middleware';
import middy from '@middy/core';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { randomUUID } from 'node:crypto';
import { DynamoDBJournal, makeIdempotent, MetricName, PayloadMismatchError } from '../../src/index.js';
import { fromPowertools, type PowertoolsMigrationOptions } from '../../src/entries/migration.js';
import { guard } from '../http/guarded-handler.js';
import { countCalls, createJournalTable, createTable, localClient } from '../support/dynamodb.js';
import { httpEvent, lambdaContext } from '../support/lambda.js';
import { requestPk } from '../../src/entries/journal.js';

const KEY_PATH = 'powertools_json(body).orderId';
const VALIDATION_PATH = 'powertools_json(body).[amount, currency]';
const PREFIX = 'create-payment';

/** What guarded attempts logged (`fields`, one entry per attempt) and counted (`metricNames`), through sinks handed to the guard. */
interface Observed {
  readonly fields: Array<Record<string, unknown>>;
  readonly metricNames: string[];
  readonly logger: never;
  readonly metrics: never;
}

function observer(): Observed {
  const fields: Array<Record<string, unknown>> = [];
  const metricNames: string[] = [];
  const log = (_: string, line: Record<string, unknown>) => fields.push(line);
  const metrics = {
    singleMetric: () => ({
      addDimension: () => undefined,
      addMetric: (name: string) => metricNames.push(name),
      clearDefaultDimensions: () => undefined,
    }),
  };
  return { fields, metricNames, logger: { info: log, error: log } as never, metrics: metrics as never };
}

/** A handler that counts its executions and answers like a payments API. */
function paymentsHandler(label: string) {
  const runs: string[] = [];
  const handler = async (event: APIGatewayProxyEventV2) => {
    runs.push(event.body ?? '');
    return {
      statusCode: 201,
      headers: {
        'content-type': 'application/json',
        location: `/payments/${label}_${runs.length}`,
        'x-served-by': label,
      },
      body: JSON.stringify({ id: `${label}_${runs.length}` }),
    };
  };
  return { runs, handler };
}

/** A Powertools-guarded copy of the handler, as the function ran before the migration. */
function powertoolsFunction(
  client: DynamoDBClient,
  tableName: string,
  handler: (event: APIGatewayProxyEventV2) => Promise<unknown>,
  config: Partial<ConstructorParameters<typeof IdempotencyConfig>[0]> = {},
) {
  const persistenceStore = new DynamoDBPersistenceLayer({ tableName, awsSdkV3Client: client });
  // No early timeout: a stalled execution keeps its record, as a frozen or killed container would.
  const wrapped = middy(handler, { timeoutEarlyInMillis: 0 }).use(
    makeHandlerIdempotent({
      persistenceStore,
      keyPrefix: PREFIX,
      config: new IdempotencyConfig({
        eventKeyJmesPath: KEY_PATH,
        payloadValidationJmesPath: VALIDATION_PATH,
        ...config,
      }),
    }),
  );
  return (event: APIGatewayProxyEventV2, remainingTimeMs = 10_000) =>
    wrapped(event, lambdaContext(remainingTimeMs)) as Promise<any>;
}

async function setup(migration: Partial<PowertoolsMigrationOptions> = {}) {
  const client = localClient();
  const legacyClient = localClient();
  const legacyCalls = countCalls(legacyClient);
  const journalTable = await createJournalTable(client);
  const legacyTable = await createTable(client, 'powertools', 'id');
  const journal = new DynamoDBJournal({ tableName: journalTable, client });
  const migrateFrom = fromPowertools({
    tableName: legacyTable,
    client: legacyClient,
    keyPrefix: PREFIX,
    eventKeyJmesPath: KEY_PATH,
    payloadValidationJmesPath: VALIDATION_PATH,
    ...migration,
  });
  const observed = observer();
  const idemkit = paymentsHandler('idemkit');
  const guarded = (options: Record<string, unknown> = {}) =>
    guard(idemkit.handler, journal, { migrateFrom, logger: observed.logger, metrics: observed.metrics, ...options });
  return { client, journal, legacyTable, legacyCalls, migrateFrom, observed, idemkit, guarded };
}

const payment = (orderId: string, amount = 1250) => ({ orderId, amount, currency: 'EUR' });
const lastLog = (observed: Observed) => observed.fields[observed.fields.length - 1];
const getItems = (calls: ReturnType<typeof countCalls>) => calls.byCommand.get('GetItemCommand') ?? 0;

describe('migrateFrom powertools on httpIdempotency, records written by Powertools itself', () => {
  it('replays a request Powertools completed, with Idempotent-Replayed, and stores it as its own', async () => {
    const { client, legacyTable, legacyCalls, observed, idemkit, guarded, journal } = await setup();
    const legacy = paymentsHandler('powertools');
    const event = httpEvent({ key: 'k-completed', body: payment('ord_completed') });
    const original = await powertoolsFunction(client, legacyTable, legacy.handler)(event);

    const retry = await guarded()(event);

    expect(idemkit.runs).toHaveLength(0);
    expect(retry).toEqual({
      statusCode: 201,
      headers: {
        'content-type': 'application/json',
        location: original.headers.location,
        'Idempotent-Replayed': 'true',
      },
      body: original.body,
    });
    expect(lastLog(observed)).toMatchObject({
      idempotency_status: 'replay',
      legacy_record: 'replay',
      journal_calls: 3,
    });
    expect(observed.metricNames).toEqual([MetricName.legacyHit, MetricName.replay]);
    expect(getItems(legacyCalls)).toBe(1);
    expect((await journal.get(requestPk('-', 'POST /payments', 'k-completed')))?.status).toBe('COMPLETED');
  });

  it('answers the next retry from its own record, with no Powertools read', async () => {
    const { client, legacyTable, legacyCalls, observed, idemkit, guarded } = await setup();
    const event = httpEvent({ key: 'k-twice', body: payment('ord_twice') });
    const original = await powertoolsFunction(client, legacyTable, paymentsHandler('powertools').handler)(event);
    await guarded()(event);
    legacyCalls.reset();

    const again = await guarded()(event);

    expect(again.body).toBe(original.body);
    expect(idemkit.runs).toHaveLength(0);
    expect(getItems(legacyCalls)).toBe(0);
    expect(lastLog(observed)).toMatchObject({
      idempotency_status: 'replay',
      journal_calls: 1,
      legacy_record: undefined,
    });
  });

  it('answers 409 with Retry-After while Powertools still runs the request, releasing its reservation', async () => {
    const { client, legacyTable, observed, idemkit, guarded, journal } = await setup();
    let finish: () => void = () => undefined;
    const slow = async () => {
      await new Promise<void>((resolve) => (finish = resolve));
      return { statusCode: 201, headers: { 'content-type': 'application/json' }, body: '{"id":"powertools_slow"}' };
    };
    const event = httpEvent({ key: 'k-running', body: payment('ord_running') });
    const running = powertoolsFunction(client, legacyTable, slow)(event);
    await waitForItem(client, legacyTable);

    const duplicate = await guarded()(event);

    expect(duplicate.statusCode).toBe(409);
    expect(duplicate.headers['retry-after']).toBe('1');
    expect(JSON.parse(duplicate.body).type).toBe('urn:idemkit:problem:request-in-progress');
    expect(idemkit.runs).toHaveLength(0);
    expect(lastLog(observed)).toMatchObject({
      idempotency_status: 'in_progress',
      legacy_record: 'in-progress',
      journal_calls: 3,
    });
    expect(observed.metricNames).toEqual([MetricName.legacyHit, MetricName.inProgressCollision]);
    expect(await journal.get(requestPk('-', 'POST /payments', 'k-running'))).toBeUndefined();

    finish();
    await running;
    const afterwards = await guarded()(event);
    expect(afterwards).toMatchObject({ statusCode: 201, body: '{"id":"powertools_slow"}' });
    expect(afterwards.headers['Idempotent-Replayed']).toBe('true');
    expect(idemkit.runs).toHaveLength(0);
  });

  it('runs the handler when Powertools ran out of time on the request (in progress past its in-progress expiry)', async () => {
    const { client, legacyTable, legacyCalls, observed, idemkit, guarded } = await setup();
    const event = httpEvent({ key: 'k-stalled', body: payment('ord_stalled') });
    // A Powertools execution that froze with 50 ms left: its record stays INPROGRESS.
    void powertoolsFunction(client, legacyTable, () => new Promise(() => undefined))(event, 50);
    await waitForItem(client, legacyTable);

    const retry = await guarded({ clock: () => Date.now() + 5_000 })(event);

    expect(retry.statusCode).toBe(201);
    expect(idemkit.runs).toHaveLength(1);
    expect(lastLog(observed)).toMatchObject({
      idempotency_status: 'new',
      legacy_record: 'in-progress-expired',
      journal_calls: 3,
    });
    expect(observed.metricNames).not.toContain(MetricName.legacyHit);
    expect(getItems(legacyCalls)).toBe(1);
  });

  it('runs the handler when the Powertools record has expired', async () => {
    const { client, legacyTable, legacyCalls, observed, idemkit, guarded } = await setup();
    const event = httpEvent({ key: 'k-expired', body: payment('ord_expired') });
    await powertoolsFunction(client, legacyTable, paymentsHandler('powertools').handler, { expiresAfterSeconds: 60 })(
      event,
    );

    const retry = await guarded({ clock: () => Date.now() + 61_000 })(event);

    expect(retry.statusCode).toBe(201);
    expect(retry.headers['Idempotent-Replayed']).toBeUndefined();
    expect(idemkit.runs).toHaveLength(1);
    expect(lastLog(observed)).toMatchObject({ idempotency_status: 'new', legacy_record: 'expired' });
    expect(getItems(legacyCalls)).toBe(1);
  });

  it('answers 422 when Powertools stored another payload under the key, releasing its reservation', async () => {
    const { client, legacyTable, observed, idemkit, guarded, journal } = await setup();
    await powertoolsFunction(
      client,
      legacyTable,
      paymentsHandler('powertools').handler,
    )(httpEvent({ key: 'k-changed', body: payment('ord_changed', 1250) }));

    const changed = await guarded()(httpEvent({ key: 'k-changed', body: payment('ord_changed', 9999) }));

    expect(changed.statusCode).toBe(422);
    expect(JSON.parse(changed.body).type).toBe('urn:idemkit:problem:idempotency-key-reused');
    expect(idemkit.runs).toHaveLength(0);
    expect(lastLog(observed)).toMatchObject({
      idempotency_status: 'mismatch',
      legacy_record: 'mismatch',
      journal_calls: 3,
    });
    expect(observed.metricNames).toEqual([MetricName.legacyHit, MetricName.payloadMismatch]);
    expect(await journal.get(requestPk('-', 'POST /payments', 'k-changed'))).toBeUndefined();
  });

  it('runs a request Powertools never saw, for one GetItem', async () => {
    const { legacyCalls, observed, idemkit, guarded } = await setup();

    const first = await guarded()(httpEvent({ key: 'k-absent', body: payment('ord_absent') }));

    expect(first.statusCode).toBe(201);
    expect(idemkit.runs).toHaveLength(1);
    expect(lastLog(observed)).toMatchObject({ idempotency_status: 'new', legacy_record: 'absent', journal_calls: 3 });
    expect(observed.metricNames).toEqual([MetricName.newRequest]);
    expect(getItems(legacyCalls)).toBe(1);
  });

  it('reads nothing once the window has closed', async () => {
    const { client, legacyTable, legacyCalls, observed, idemkit, guarded } = await setup({
      until: new Date(Date.now() - 1),
    });
    await powertoolsFunction(
      client,
      legacyTable,
      paymentsHandler('powertools').handler,
    )(httpEvent({ key: 'k-closed', body: payment('ord_closed') }));

    await guarded()(httpEvent({ key: 'k-closed', body: payment('ord_closed') }));

    expect(getItems(legacyCalls)).toBe(0);
    expect(idemkit.runs).toHaveLength(1);
    expect(lastLog(observed)).toMatchObject({
      idempotency_status: 'new',
      legacy_record: 'window-closed',
      journal_calls: 2,
    });
  });

  it('reads nothing for a request Powertools would not have guarded (no value at the key path)', async () => {
    const { legacyCalls, idemkit, guarded } = await setup();

    await guarded()(httpEvent({ key: 'k-nokey', body: { amount: 1 } }));

    expect(getItems(legacyCalls)).toBe(0);
    expect(idemkit.runs).toHaveLength(1);
  });

  it('answers 503 and keeps no reservation when the Powertools table cannot be read', async () => {
    const { observed, idemkit, guarded, journal } = await setup({ tableName: `missing-${randomUUID().slice(0, 8)}` });

    const answer = await guarded()(httpEvent({ key: 'k-unreadable', body: payment('ord_unreadable') }));

    expect(answer.statusCode).toBe(503);
    expect(answer.headers['retry-after']).toBe('1');
    expect(idemkit.runs).toHaveLength(0);
    expect(lastLog(observed)).toMatchObject({ idempotency_status: 'journal_unavailable' });
    expect(await journal.get(requestPk('-', 'POST /payments', 'k-unreadable'))).toBeUndefined();
  });

  it('reads a composite-key Powertools table (sortKeyAttr, staticPkValue)', async () => {
    const client = localClient();
    const tableName = `powertools-sk-${randomUUID().slice(0, 8)}`;
    await client.send(
      new CreateTableCommand({
        TableName: tableName,
        AttributeDefinitions: [
          { AttributeName: 'id', AttributeType: 'S' },
          { AttributeName: 'sk', AttributeType: 'S' },
        ],
        KeySchema: [
          { AttributeName: 'id', KeyType: 'HASH' },
          { AttributeName: 'sk', KeyType: 'RANGE' },
        ],
        BillingMode: 'PAY_PER_REQUEST',
      }),
    );
    const persistenceStore = new DynamoDBPersistenceLayer({
      tableName,
      awsSdkV3Client: client,
      sortKeyAttr: 'sk',
      staticPkValue: 'idempotency#payments',
      statusAttr: 'state',
      dataAttr: 'result',
    });
    const legacy = middy(paymentsHandler('powertools').handler).use(
      makeHandlerIdempotent({
        persistenceStore,
        keyPrefix: PREFIX,
        config: new IdempotencyConfig({ eventKeyJmesPath: KEY_PATH }),
      }),
    );
    const event = httpEvent({ key: 'k-composite', body: payment('ord_composite') });
    const original = (await legacy(event, lambdaContext())) as { body: string };
    const { idemkit, guarded } = await setup({
      tableName,
      client,
      payloadValidationJmesPath: undefined,
      attributes: { sortKey: 'sk', status: 'state', data: 'result' },
      staticPkValue: 'idempotency#payments',
    });

    const retry = await guarded()(event);

    expect(retry.body).toBe(original.body);
    expect(retry.headers['Idempotent-Replayed']).toBe('true');
    expect(idemkit.runs).toHaveLength(0);
  });
});

describe('what changes for a rejected duplicate', () => {
  /** A handler whose first execution waits for `finish()`, counting its runs. */
  function gatedHandler() {
    const gate = { runs: 0, finish: () => undefined as void };
    const handler = async () => {
      if (++gate.runs === 1) await new Promise<void>((resolve) => (gate.finish = resolve));
      return { statusCode: 201, headers: { 'content-type': 'application/json' }, body: `{"run":${gate.runs}}` };
    };
    return { gate, handler };
  }

  it('keeps the first request answered where Powertools deleted its record and ran it again', async () => {
    const { client, legacyTable, journal } = await setup();
    const event = httpEvent({ key: 'k-dup', body: payment('ord_dup') });
    const changed = httpEvent({ key: 'k-dup', body: payment('ord_dup', 1) });
    const powertools = gatedHandler();
    const legacy = powertoolsFunction(client, legacyTable, powertools.handler);
    const idemkit = gatedHandler();
    const guarded = () => guard(idemkit.handler, journal);

    const legacyFirst = legacy(event);
    await waitForItem(client, legacyTable);
    // Its onError hook deletes the record when it rejects a duplicate or a changed payload.
    await expect(legacy(event)).rejects.toThrow('already an execution in progress');
    powertools.gate.finish();
    await legacyFirst;
    await expect(legacy(changed)).rejects.toThrow('Payload does not match');
    await legacy(event);

    const idemkitFirst = guarded()(event);
    while (!(await journal.get(requestPk('-', 'POST /payments', 'k-dup'))))
      await new Promise((resolve) => setTimeout(resolve, 10));
    const duplicate = await guarded()(event);
    idemkit.gate.finish();
    await idemkitFirst;
    const mismatch = await guarded()(changed);
    const retry = await guarded()(event);

    expect(powertools.gate.runs).toBe(2);
    expect(idemkit.gate.runs).toBe(1);
    expect([duplicate.statusCode, mismatch.statusCode, retry.statusCode]).toEqual([409, 422, 201]);
    expect(retry.body).toBe('{"run":1}');
  });
});

describe('migrateFrom powertools on makeIdempotent, records written by Powertools makeIdempotent', () => {
  type Order = { orderId: string; quantity: number };
  // Outside a Lambda handler Powertools warns that it has no remaining time to record.
  beforeEach(() => jest.spyOn(console, 'warn').mockImplementation(() => undefined));
  afterEach(() => jest.restoreAllMocks());

  async function legacyStore() {
    const client = localClient();
    const tableName = await createTable(client, 'powertools', 'id');
    return { client, tableName };
  }

  it('returns the result Powertools stored for the input, under its default prefix (the function name)', async () => {
    const { client, tableName } = await legacyStore();
    const previous = process.env.AWS_LAMBDA_FUNCTION_NAME;
    process.env.AWS_LAMBDA_FUNCTION_NAME = 'reserve-stock-fn';
    const persistenceStore = new DynamoDBPersistenceLayer({ tableName, awsSdkV3Client: client });
    if (previous === undefined) delete process.env.AWS_LAMBDA_FUNCTION_NAME;
    else process.env.AWS_LAMBDA_FUNCTION_NAME = previous;
    const legacy = powertoolsMakeIdempotent(
      async (order: Order) => ({ reservation: `res_${order.orderId}`, quantity: order.quantity }),
      {
        persistenceStore,
        config: new IdempotencyConfig({ eventKeyJmesPath: 'orderId' }),
      },
    );
    const stored = await legacy({ orderId: 'o-1', quantity: 2 });
    const journal = new DynamoDBJournal({ tableName: await createJournalTable(client), client });
    let runs = 0;
    const reserve = makeIdempotent(
      async () => {
        runs++;
        return { reservation: 'new', quantity: 0 };
      },
      {
        journal,
        operation: 'reserveStock',
        key: (order: Order) => order.orderId,
        migrateFrom: fromPowertools({ tableName, client, keyPrefix: 'reserve-stock-fn', eventKeyJmesPath: 'orderId' }),
      },
    );

    const result = await reserve({ orderId: 'o-1', quantity: 2 });

    expect(result).toEqual(stored);
    expect(runs).toBe(0);
  });

  it('reads the argument Powertools hashed with dataIndexArgument from a field of the input', async () => {
    const { client, tableName } = await legacyStore();
    const persistenceStore = new DynamoDBPersistenceLayer({ tableName, awsSdkV3Client: client });
    const legacy = powertoolsMakeIdempotent(
      async (warehouse: string, order: Order) => ({ warehouse, reserved: order.quantity }),
      {
        persistenceStore,
        keyPrefix: 'reserve',
        dataIndexArgument: 1,
        config: new IdempotencyConfig({}),
      },
    );
    const stored = await legacy('eu-1', { orderId: 'o-2', quantity: 5 });
    const journal = new DynamoDBJournal({ tableName: await createJournalTable(client), client });
    let runs = 0;
    const reserve = makeIdempotent(
      async (input: { warehouse: string; order: Order }) => {
        runs++;
        return { warehouse: input.warehouse, reserved: -1 };
      },
      // Powertools hashed the whole second argument; it is now `order` in the input.
      {
        journal,
        operation: 'reserve',
        key: (input) => input.order.orderId,
        migrateFrom: fromPowertools({ tableName, client, keyPrefix: 'reserve', eventKeyJmesPath: 'order' }),
      },
    );

    const result = await reserve({ warehouse: 'eu-1', order: { orderId: 'o-2', quantity: 5 } });
    const unrelated = await reserve({ warehouse: 'eu-1', order: { orderId: 'o-3', quantity: 5 } });

    expect(result).toEqual(stored);
    expect(unrelated).toEqual({ warehouse: 'eu-1', reserved: -1 });
    expect(runs).toBe(1);
  });

  it('throws PayloadMismatchError for an input Powertools stored with another validation hash', async () => {
    const { client, tableName } = await legacyStore();
    const persistenceStore = new DynamoDBPersistenceLayer({ tableName, awsSdkV3Client: client });
    const config = new IdempotencyConfig({ eventKeyJmesPath: 'orderId', payloadValidationJmesPath: 'quantity' });
    await powertoolsMakeIdempotent(async (order: Order) => ({ reserved: order.quantity }), {
      persistenceStore,
      keyPrefix: 'reserve',
      config,
    })({ orderId: 'o-4', quantity: 1 });
    const journal = new DynamoDBJournal({ tableName: await createJournalTable(client), client });
    let runs = 0;
    const reserve = makeIdempotent(
      async (order: Order) => {
        runs++;
        return { reserved: order.quantity };
      },
      {
        journal,
        operation: 'reserve',
        key: (order) => order.orderId,
        migrateFrom: fromPowertools({
          tableName,
          client,
          keyPrefix: 'reserve',
          eventKeyJmesPath: 'orderId',
          payloadValidationJmesPath: 'quantity',
        }),
      },
    );

    await expect(reserve({ orderId: 'o-4', quantity: 7 })).rejects.toBeInstanceOf(PayloadMismatchError);
    expect(runs).toBe(0);
  });
});

/** Waits until the Powertools middleware has written its in-progress record. */
async function waitForItem(client: DynamoDBClient, tableName: string): Promise<void> {
  const { ScanCommand } = await import('@aws-sdk/client-dynamodb');
  for (let i = 0; i < 100; i++) {
    const out = await client.send(new ScanCommand({ TableName: tableName, Limit: 1 }));
    if ((out.Items?.length ?? 0) > 0) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error('Powertools wrote no record');
}

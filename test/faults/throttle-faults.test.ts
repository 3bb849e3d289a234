import { GetItemCommand, ProvisionedThroughputExceededException, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import middy from '@middy/core';
import {
  DynamoDBJournal,
  httpIdempotency,
  idempotencyOf,
  JournalThrottledError,
  makeIdempotent,
  RecordStatus,
  type IdempotencyScope,
} from '../../src/index.js';
import { messagePk, requestPk } from '../../src/entries/journal.js';
import { sqsConsumer } from '../../src/entries/sqs.js';
import { kinesisConsumer } from '../../src/entries/streams.js';
import { kinesisEvent, sqsEvent } from '../../src/testing/index.js';
import { createJournalTable, createTable, localClient } from '../support/dynamodb.js';
import { httpEvent, lambdaContext } from '../support/lambda.js';
import { injectFault, type Fault, type FaultHandle, type JournalCall } from './support/fault-injection.js';
import { countOf, problemType } from './support/payment-fixture.js';

/**
 * Throttling is its own answer (issue 38): a throttled journal call, whichever of DynamoDB's throttles and
 * whichever call of the attempt it meets, answers 429 `journal-throttled` (or `JournalThrottledError`, or a
 * batch item failure), runs no handler that has not run, loses nothing — a record already held stays held
 * until its lease ends, never released to a rerun — and is counted as `JournalThrottled`, never `JournalError`,
 * with DynamoDB's reasons in the log line. DynamoDB Local never throttles: the throttles are injected into the
 * client's middleware (inside the SDK's retry loop), everything else is the real server.
 */

const TABLE_ARN = 'arn:aws:dynamodb:eu-west-1:123456789012:table/prod-idempotency-journal';

/** Each throttle DynamoDB answers with, and the reasons the log line must carry for it. */
const KINDS: ReadonlyArray<readonly [string, Fault, readonly string[]]> = [
  [
    'ProvisionedThroughputExceededException',
    { kind: 'throttle', error: 'ProvisionedThroughputExceededException' },
    ['ProvisionedThroughputExceededException'],
  ],
  ['ThrottlingException', { kind: 'throttle', error: 'ThrottlingException' }, ['ThrottlingException']],
  ['RequestLimitExceeded', { kind: 'throttle', error: 'RequestLimitExceeded' }, ['RequestLimitExceeded']],
  [
    'ThrottlingReasons (TableWriteKeyRangeThroughputExceeded)',
    {
      kind: 'throttle',
      error: 'ProvisionedThroughputExceededException',
      reasons: [{ reason: 'TableWriteKeyRangeThroughputExceeded', resource: TABLE_ARN }],
    },
    ['TableWriteKeyRangeThroughputExceeded'],
  ],
  [
    'throttlingReasons of a ThrottlingException (TableWriteMaxOnDemandThroughputExceeded)',
    {
      kind: 'throttle',
      error: 'ThrottlingException',
      reasons: [{ reason: 'TableWriteMaxOnDemandThroughputExceeded', resource: TABLE_ARN }],
    },
    ['TableWriteMaxOnDemandThroughputExceeded'],
  ],
];

/** A completion transaction cancelled because its items were throttled: only a transaction can meet it. */
const CANCELLED: readonly [string, Fault, readonly string[]] = [
  'TransactionCanceledException (ThrottlingError)',
  { kind: 'throttled-transaction' },
  ['ThrottlingError'],
];

type Call = Extract<JournalCall, 'reserve' | 'heartbeat' | 'beginEffect' | 'complete' | 'release'>;
const CALLS: readonly Call[] = ['reserve', 'heartbeat', 'beginEffect', 'complete', 'release'];

/** Every kind on every call, and the cancelled transaction on the completion (which stages a write). */
const MATRIX: Array<[string, Call, Fault, readonly string[]]> = [
  ...CALLS.flatMap((call) =>
    KINDS.map(([name, fault, reasons]) => [name, call, fault, reasons] as [string, Call, Fault, readonly string[]]),
  ),
  [CANCELLED[0], 'complete', CANCELLED[1], CANCELLED[2]],
];

/**
 * What the handler does so that the attempt makes the faulty call: renews its lease (`heartbeat`), marks an effect
 * begun before making it (`beginEffect`), stages a ledger write (`complete`: the completion is then a transaction
 * that commits it), or fails (`release`: the record is let go).
 */
interface Work {
  runs: number;
  effects: number;
}

function workFor(call: Call, ledger: string, work: Work) {
  return async (scope: IdempotencyScope): Promise<boolean> => {
    work.runs++;
    if (call === 'heartbeat') await scope.heartbeat();
    if (call === 'beginEffect') {
      await scope.beginEffect('charge');
      work.effects++;
    }
    if (call === 'complete')
      scope.stage({
        Update: {
          TableName: ledger,
          Key: { pk: scope.key },
          UpdateExpression: 'ADD #n :one',
          ExpressionAttributeNames: { '#n': 'count' },
          ExpressionAttributeValues: { ':one': 1 },
        },
      });
    return call !== 'release';
  };
}

/** The guard's log lines and metrics, kept. */
function telemetry() {
  const lines: Array<{ message: string; fields: Record<string, unknown> }> = [];
  const metrics: string[] = [];
  const keep = (message: string, fields: Record<string, unknown>) => lines.push({ message, fields });
  return {
    lines,
    metrics,
    options: {
      logger: { info: keep, error: keep } as never,
      metrics: {
        singleMetric: () => ({
          addDimension: () => undefined,
          addMetric: (name: string) => metrics.push(name),
          clearDefaultDimensions: () => undefined,
        }),
      } as never,
    },
    /** The attempt's own line (a consumer logs a reported record too). */
    line: () => lines.find((line) => 'idempotency_status' in line.fields && 'journal_calls' in line.fields)?.fields,
  };
}

describe('throttled journal calls against DynamoDB Local', () => {
  let client: DynamoDBClient;
  let tableName: string;
  let ledger: string;
  let journal: DynamoDBJournal;

  beforeAll(async () => {
    client = localClient();
    [tableName, ledger] = await Promise.all([createJournalTable(client), createTable(client, 'ledger')]);
    journal = new DynamoDBJournal({ tableName, client });
  });

  /** A container whose journal meets `fault` on `call`; the SDK would make `maxAttempts` attempts of any call. */
  function faultyJournal(call: Call, fault: Fault, maxAttempts = 1): { journal: DynamoDBJournal; fault: FaultHandle } {
    const faulty = localClient({ maxAttempts });
    const handle = injectFault(faulty, call, fault);
    return { journal: new DynamoDBJournal({ tableName, client: faulty }), fault: handle };
  }

  const newKey = (call: Call) => `${call}-${Math.random().toString(36).slice(2)}`;

  /** What every throttle leaves behind, whatever the entry point. */
  async function expectNothingLost(call: Call, pk: string, key: string, work: Work) {
    const record = await journal.get(pk);
    // Before the handler runs, nothing is written; inside it, no effect began and the record was let go.
    if (call === 'reserve') expect(work.runs).toBe(0);
    else expect(work.runs).toBe(1);
    expect(work.effects).toBe(0);
    if (call === 'reserve' || call === 'heartbeat' || call === 'beginEffect') expect(record).toBeUndefined();
    // After it ran, the record stays held under its lease: nothing released it to a rerun.
    else expect(record).toMatchObject({ status: RecordStatus.inProgress, attempt: 1, effectStarted: false });
    expect(await countOf(client, ledger, key)).toBe(0);
  }

  function expectCounted(seen: ReturnType<typeof telemetry>, call: Call, reasons: readonly string[]) {
    expect(seen.metrics.filter((name) => name === 'JournalThrottled')).toHaveLength(1);
    expect(seen.metrics).not.toContain('JournalError');
    const line = seen.line();
    expect(line?.throttle_reasons).toBe(reasons.join(','));
    // A throttle inside the handler let the record go: the line says so. Otherwise the attempt ended throttled.
    expect(line?.idempotency_status).toBe(
      call === 'heartbeat' || call === 'beginEffect' ? 'released' : 'journal_throttled',
    );
  }

  describe('through the Middy middleware', () => {
    it.each(MATRIX)('%s on %s', async (_kind, call, fault, reasons) => {
      const key = newKey(call);
      const work: Work = { runs: 0, effects: 0 };
      const doWork = workFor(call, ledger, work);
      const seen = telemetry();
      const faulty = faultyJournal(call, fault);
      const handler = middy(async (_event: unknown, context: object) => {
        const ok = await doWork(idempotencyOf(context));
        return ok ? { statusCode: 201, body: '{"paid":true}' } : { statusCode: 503, body: '{"paid":false}' };
      }).use(httpIdempotency({ journal: faulty.journal, ...seen.options }));
      const context = lambdaContext();

      const answer = (await handler(httpEvent({ key, body: { amount: 5 } }) as never, context as never)) as {
        statusCode: number;
        headers: Record<string, string>;
        body: string;
      };

      expect(faulty.fault.fired()).toBeGreaterThan(0);
      if (call === 'release') {
        // The handler's own answer stands; its record could not be let go and waits for its lease.
        expect(answer.statusCode).toBe(503);
        expect(answer.body).toBe('{"paid":false}');
      } else {
        expect(answer.statusCode).toBe(429);
        expect(['1', '2', '3']).toContain(answer.headers['retry-after']);
        expect(JSON.parse(answer.body)).toEqual({
          type: 'urn:idemkit:problem:journal-throttled',
          title: 'The idempotency journal is throttling this request',
          status: 429,
          detail: expect.stringContaining(
            'Retry the request with the same Idempotency-Key after the Retry-After delay',
          ),
          instance: context.awsRequestId,
        });
        for (const secret of ['arn:', '123456789012', 'Throughput', 'Throttling'])
          expect(answer.body).not.toContain(secret);
      }
      await expectNothingLost(call, requestPk('-', 'POST /payments', key), key, work);
      expectCounted(seen, call, reasons);
    });

    it.each(['complete', 'release'] as const)(
      'answers a retry of a record whose %s was throttled with 409 while its lease runs, never a rerun',
      async (call) => {
        const key = newKey(call);
        const work: Work = { runs: 0, effects: 0 };
        const doWork = workFor(call, ledger, work);
        const guarded = (j: DynamoDBJournal) =>
          middy(async (_event: unknown, context: object) => {
            const ok = await doWork(idempotencyOf(context));
            return { statusCode: ok ? 201 : 503, body: '{}' };
          }).use(httpIdempotency({ journal: j, ...telemetry().options }));
        await guarded(faultyJournal(call, { kind: 'throttle' }).journal)(
          httpEvent({ key, body: { amount: 5 } }) as never,
          lambdaContext() as never,
        );

        const retry = (await guarded(journal)(
          httpEvent({ key, body: { amount: 5 } }) as never,
          lambdaContext() as never,
        )) as {
          statusCode: number;
          headers: Record<string, string>;
          body: string;
        };

        expect(retry.statusCode).toBe(409);
        expect(problemType(retry)).toBe('urn:idemkit:problem:request-in-progress');
        expect(work.runs).toBe(1);
      },
    );

    it('lets the handler’s answer stand when a completion with nothing staged is throttled, and holds the record', async () => {
      const key = newKey('complete');
      const seen = telemetry();
      const faulty = faultyJournal('complete', { kind: 'throttle', error: 'ThrottlingException' });
      const handler = middy(async () => ({ statusCode: 201, body: '{"paid":true}' })).use(
        httpIdempotency({ journal: faulty.journal, ...seen.options }),
      );

      const answer = (await handler(httpEvent({ key, body: {} }) as never, lambdaContext() as never)) as {
        statusCode: number;
        body: string;
      };

      expect(answer).toMatchObject({ statusCode: 201, body: '{"paid":true}' });
      expect(await journal.get(requestPk('-', 'POST /payments', key))).toMatchObject({
        status: RecordStatus.inProgress,
        attempt: 1,
      });
      expect(seen.metrics).toEqual(['NewRequest', 'JournalThrottled']);
      expect(seen.line()).toMatchObject({ idempotency_status: 'new', throttle_reasons: 'ThrottlingException' });
      expect(seen.lines.map((line) => line.message)).toContain('idempotency journal error');
    });

    it('can answer a throttle with another status (statusCodes.journalThrottled), still with its Retry-After', async () => {
      const faulty = faultyJournal('reserve', { kind: 'throttle' });
      const handler = middy(async () => ({ statusCode: 201, body: '{}' })).use(
        httpIdempotency({ journal: faulty.journal, statusCodes: { journalThrottled: 503 }, ...telemetry().options }),
      );

      const answer = (await handler(
        httpEvent({ key: newKey('reserve'), body: {} }) as never,
        lambdaContext() as never,
      )) as {
        statusCode: number;
        headers: Record<string, string>;
        body: string;
      };

      expect(answer.statusCode).toBe(503);
      expect(['1', '2', '3']).toContain(answer.headers['retry-after']);
      expect(problemType(answer)).toBe('urn:idemkit:problem:journal-throttled');
    });
  });

  describe('through makeIdempotent', () => {
    it.each(MATRIX)('%s on %s', async (_kind, call, fault, reasons) => {
      const key = newKey(call);
      const work: Work = { runs: 0, effects: 0 };
      const doWork = workFor(call, ledger, work);
      const seen = telemetry();
      const faulty = faultyJournal(call, fault);
      const pay = makeIdempotent(
        async (_input: { key: string }, context: object) => {
          if (!(await doWork(idempotencyOf(context)))) throw new Error('the payment rail refused');
          return { paid: true };
        },
        { journal: faulty.journal, operation: 'pay', key: (input) => input.key, ...seen.options },
      );

      const outcome = await pay({ key }, lambdaContext()).then(
        () => undefined,
        (error: unknown) => error,
      );

      if (call === 'release') {
        expect(outcome).toEqual(new Error('the payment rail refused'));
      } else {
        expect(outcome).toBeInstanceOf(JournalThrottledError);
        const throttled = outcome as JournalThrottledError;
        expect(throttled.code).toBe('journal-throttled');
        expect(throttled.reasons).toEqual(reasons);
        expect([1, 2, 3]).toContain(throttled.retryAfterSeconds);
      }
      await expectNothingLost(call, requestPk('-', 'pay', key), key, work);
      expectCounted(seen, call, reasons);
    });
  });

  describe('through sqsConsumer', () => {
    it.each(MATRIX)('%s on %s: the record is a batch item failure', async (_kind, call, fault, reasons) => {
      const messageId = newKey(call);
      const work: Work = { runs: 0, effects: 0 };
      const doWork = workFor(call, ledger, work);
      const seen = telemetry();
      const faulty = faultyJournal(call, fault);
      const consume = sqsConsumer(
        async (_record, context) => {
          if (!(await doWork(idempotencyOf(context)))) throw new Error('the stock service refused');
        },
        { journal: faulty.journal, consumer: 'orders', ...seen.options },
      );

      const response = await consume(sqsEvent([{ body: { orderId: 'o-1' }, messageId }]), lambdaContext());

      expect(response.batchItemFailures).toEqual([{ itemIdentifier: messageId }]);
      await expectNothingLost(call, messagePk('orders', messageId), messageId, work);
      expectCounted(seen, call, reasons);
    });
  });

  describe('through kinesisConsumer', () => {
    it.each(
      MATRIX.filter(
        ([kind]) => kind === 'ThrottlingReasons (TableWriteKeyRangeThroughputExceeded)' || kind === CANCELLED[0],
      ),
    )(
      '%s on %s: the record is the batch item failure, and the records after it wait',
      async (_kind, call, fault, reasons) => {
        const work: Work = { runs: 0, effects: 0 };
        const doWork = workFor(call, ledger, work);
        const seen = telemetry();
        const faulty = faultyJournal(call, fault);
        const consume = kinesisConsumer(
          async (_record, context) => {
            if (!(await doWork(idempotencyOf(context)))) throw new Error('the stock service refused');
          },
          { journal: faulty.journal, consumer: 'stock', ...seen.options },
        );
        const event = kinesisEvent([{ data: { orderId: 'o-1' } }, { data: { orderId: 'o-2' } }]);
        const [first] = event.Records;

        const response = await consume(event, lambdaContext());

        expect(response.batchItemFailures).toEqual([{ itemIdentifier: first.kinesis.sequenceNumber }]);
        await expectNothingLost(call, messagePk('stock', first.eventID), first.eventID, work);
        expectCounted(seen, call, reasons);
      },
    );
  });

  describe('the SDK’s own retries', () => {
    it.each([
      ['reserve', 1],
      ['heartbeat', 1],
      ['beginEffect', 1],
      ['complete', 2],
      ['release', 2],
    ] as const)(
      'sends a throttled %s at most %i time(s) whatever the client’s maxAttempts (here 5)',
      async (call, attempts) => {
        const key = newKey(call);
        const work: Work = { runs: 0, effects: 0 };
        const doWork = workFor(call, ledger, work);
        const faulty = faultyJournal(call, { kind: 'throttle', error: 'ThrottlingException' }, 5);
        const pay = makeIdempotent(
          async (_input: { key: string }, context: object) => {
            if (!(await doWork(idempotencyOf(context)))) throw new Error('refused');
            return {};
          },
          { journal: faulty.journal, operation: 'pay', key: (input) => input.key, ...telemetry().options },
        );

        await pay({ key }, lambdaContext()).catch(() => undefined);

        expect(faulty.fault.fired()).toBe(attempts);
      },
    );

    it('absorbs a single throttle of a completion in its one SDK retry: the outcome is stored once', async () => {
      const key = newKey('complete');
      const work: Work = { runs: 0, effects: 0 };
      const faulty = localClient({ maxAttempts: 3 });
      const fault = injectFault(faulty, 'complete', { kind: 'throttle' }, { times: 1 });
      const doWork = workFor('complete', ledger, work);
      const pay = makeIdempotent(
        async (_input: { key: string }, context: object) => {
          await doWork(idempotencyOf(context));
          return { paid: true };
        },
        {
          journal: new DynamoDBJournal({ tableName, client: faulty }),
          operation: 'pay',
          key: (input) => input.key,
          ...telemetry().options,
        },
      );

      const result = await pay({ key }, lambdaContext());

      expect(fault.fired()).toBe(1);
      expect(result).toEqual({ paid: true });
      expect(await journal.get(requestPk('-', 'pay', key))).toMatchObject({ status: RecordStatus.completed });
      expect(await countOf(client, ledger, key)).toBe(1);
    });

    it('bounds them the same on a DynamoDBDocumentClient, which shares its base client’s middleware', async () => {
      const base = localClient({ maxAttempts: 5 });
      const fault = injectFault(base, 'reserve', { kind: 'throttle' });
      const pay = makeIdempotent(async () => ({}), {
        journal: new DynamoDBJournal({ tableName, client: DynamoDBDocumentClient.from(base) }),
        operation: 'pay',
        key: (input: { key: string }) => input.key,
        ...telemetry().options,
      });

      await expect(pay({ key: newKey('reserve') }, lambdaContext())).rejects.toBeInstanceOf(JournalThrottledError);

      expect(fault.fired()).toBe(1);
    });

    it('leaves the client’s other calls to its own retries: a throttled GetItem of yours is sent maxAttempts times', async () => {
      const shared = localClient({ maxAttempts: 3 });
      new DynamoDBJournal({ tableName, client: shared });
      let sent = 0;
      shared.middlewareStack.add(
        (next) => async (args) => {
          if (!(args.input as { TableName?: string }).TableName?.startsWith('ledger')) return next(args);
          sent++;
          throw new ProvisionedThroughputExceededException({ message: 'throttled', $metadata: {} });
        },
        { step: 'finalizeRequest', name: 'throttle-own-calls' },
      );

      await expect(shared.send(new GetItemCommand({ TableName: ledger, Key: { pk: { S: 'x' } } }))).rejects.toThrow(
        'throttled',
      );

      expect(sent).toBe(3);
    });
  });

  it('draws Retry-After from 1–3 s at random, so the callers of one storm do not come back together', () => {
    const seconds = new Set(
      Array.from(
        { length: 200 },
        () => new JournalThrottledError(['TableWriteKeyRangeThroughputExceeded'], 'x').retryAfterSeconds,
      ),
    );

    expect([...seconds].sort()).toEqual([1, 2, 3]);
  });
});

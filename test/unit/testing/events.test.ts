import middy from '@middy/core';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import {
  dynamodbStreamConsumer,
  httpIdempotency,
  kinesisConsumer,
  MemoryJournal,
  sqsConsumer,
} from '../../../src/index.js';
import {
  albEvent,
  dynamodbStreamEvent,
  functionUrlEvent,
  httpApiEvent,
  kinesisEvent,
  lambdaContext,
  restApiEvent,
  sqsEvent,
  type HttpRequestOptions,
} from '../../../src/testing/index.js';

const REQUEST: HttpRequestOptions = {
  method: 'POST',
  path: '/payments/p-1/refunds',
  route: '/payments/{id}/refunds',
  idempotencyKey: 'k-1',
  body: { amount: 5 },
  principal: 'alice',
};

/** Each builder, and the journal record the guard keeps for {@link REQUEST} through it. */
const HTTP_BUILDERS = [
  ['httpApiEvent', httpApiEvent, 'req#alice#POST /payments/{id}/refunds#k-1'],
  ['restApiEvent', restApiEvent, 'req#alice#POST /payments/{id}/refunds#k-1'],
  ['functionUrlEvent', functionUrlEvent, 'req#alice#POST /payments/p-1/refunds#k-1'],
  ['albEvent', albEvent, 'req#-#POST /payments/p-1/refunds#k-1'],
] as const;

function guardedCounter(journal: MemoryJournal) {
  let runs = 0;
  const handler = middy(async (event: { body?: string | null }) => ({
    statusCode: 201,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ run: ++runs, received: JSON.parse(event.body ?? 'null') }),
  })).use(httpIdempotency({ journal }));
  return { handler: handler as (event: unknown, context: unknown) => Promise<any>, runs: () => runs };
}

describe('idemkit/testing HTTP event builders', () => {
  it.each(HTTP_BUILDERS)('%s: the guard runs the handler once and replays the retry', async (_name, build) => {
    const { handler, runs } = guardedCounter(new MemoryJournal());
    const first = await handler(build(REQUEST), lambdaContext());
    const retry = await handler(build(REQUEST), lambdaContext());
    expect(runs()).toBe(1);
    expect(JSON.parse(first.body)).toEqual({ run: 1, received: { amount: 5 } });
    expect(retry.body).toBe(first.body);
    expect(retry.headers['Idempotent-Replayed']).toBe('true');
  });

  it.each(HTTP_BUILDERS)(
    '%s: the record is scoped by the tenant and operation the event carries',
    async (_name, build, pk) => {
      const journal = new MemoryJournal();
      await guardedCounter(journal).handler(build(REQUEST), lambdaContext());
      expect(await journal.get(pk)).toBeDefined();
    },
  );

  it.each(HTTP_BUILDERS)('%s: another body under the same key is refused with 422', async (_name, build) => {
    const { handler } = guardedCounter(new MemoryJournal());
    await handler(build(REQUEST), lambdaContext());
    const reused = await handler(build({ ...REQUEST, body: { amount: 6 } }), lambdaContext());
    expect(reused.statusCode).toBe(422);
  });

  it.each(HTTP_BUILDERS)('%s: without idempotencyKey a POST is refused with 400', async (_name, build) => {
    const { handler, runs } = guardedCounter(new MemoryJournal());
    const answer = await handler(build({ ...REQUEST, idempotencyKey: undefined }), lambdaContext());
    expect(answer.statusCode).toBe(400);
    expect(runs()).toBe(0);
  });
});

describe('idemkit/testing record event builders', () => {
  it('sqsEvent: a message delivered twice is processed once', async () => {
    const seen: string[] = [];
    const handler = sqsConsumer(async (record) => void seen.push(record.body), {
      journal: new MemoryJournal(),
      consumer: 'orders',
    });
    const event = sqsEvent([
      { body: { orderId: 'o-1' }, messageId: 'm-1' },
      { body: { orderId: 'o-1' }, messageId: 'm-1' },
      { body: 'plain text', messageId: 'm-2' },
    ]);
    expect(await handler(event, lambdaContext())).toEqual({ batchItemFailures: [] });
    expect(seen).toEqual(['{"orderId":"o-1"}', 'plain text']);
  });

  it('sqsEvent: message groups make a FIFO queue with string attributes', () => {
    const [record] = sqsEvent([{ body: 'x', messageGroupId: 'g-1', attributes: { eventId: 'e-1' } }]).Records;
    expect(record.eventSourceARN).toMatch(/:test-queue\.fifo$/);
    expect(record.attributes.MessageGroupId).toBe('g-1');
    expect(record.messageAttributes.eventId).toMatchObject({ stringValue: 'e-1', dataType: 'String' });
  });

  it('kinesisEvent: base64 data, increasing sequence numbers, eventID of shard and sequence', () => {
    const { Records } = kinesisEvent([{ data: { orderId: 'o-1' } }, { data: 'raw', partitionKey: 'p-2' }]);
    expect(JSON.parse(Buffer.from(Records[0].kinesis.data, 'base64').toString('utf8'))).toEqual({ orderId: 'o-1' });
    expect(Buffer.from(Records[1].kinesis.data, 'base64').toString('utf8')).toBe('raw');
    expect(BigInt(Records[1].kinesis.sequenceNumber)).toBe(BigInt(Records[0].kinesis.sequenceNumber) + 1n);
    expect(Records[0].eventID).toBe(`shardId-000000000000:${Records[0].kinesis.sequenceNumber}`);
    expect(Records[1].kinesis.partitionKey).toBe('p-2');
  });

  it('dynamodbStreamEvent: images in attribute-value JSON, distinct event ids, the view type the images imply', () => {
    const { Records } = dynamodbStreamEvent([
      { keys: { pk: { S: 'o#1' } }, newImage: { pk: { S: 'o#1' }, total: { N: '5' } } },
      {
        eventName: 'MODIFY',
        keys: { pk: { S: 'o#1' } },
        newImage: { pk: { S: 'o#1' } },
        oldImage: { pk: { S: 'o#1' } },
      },
    ]);
    expect(unmarshall(Records[0].dynamodb!.NewImage as Record<string, AttributeValue>)).toEqual({
      pk: 'o#1',
      total: 5,
    });
    expect(Records[0].eventName).toBe('INSERT');
    expect(Records[0].eventID).not.toBe(Records[1].eventID);
    expect(Records[1].dynamodb!.StreamViewType).toBe('NEW_AND_OLD_IMAGES');
  });
});

describe('idemkit/testing record event builders across calls', () => {
  const sequenceNumbers = (event: ReturnType<typeof kinesisEvent>) =>
    event.Records.map((r) => r.kinesis.sequenceNumber);
  const ascending = (numbers: readonly string[]) =>
    numbers.every((n, i) => i === 0 || BigInt(n) > BigInt(numbers[i - 1]));

  it('kinesisEvent: each call builds new records, which the guard runs, while the same event again is a redelivery', async () => {
    const handled: unknown[] = [];
    const handler = kinesisConsumer(async (record) => void handled.push(record.data), {
      journal: new MemoryJournal(),
      consumer: 'orders',
    });
    const first = kinesisEvent([{ data: { orderId: 'o-1' } }]);
    const second = kinesisEvent([{ data: { orderId: 'o-2' } }]);

    await handler(first, lambdaContext());
    await handler(second, lambdaContext());
    await handler(first, lambdaContext());

    expect(handled).toEqual([{ orderId: 'o-1' }, { orderId: 'o-2' }]);
    expect(second.Records[0].eventID).not.toBe(first.Records[0].eventID);
  });

  it('kinesisEvent: two loads of the module (two test files, two Jest workers) build different records', () => {
    const build = () => {
      let event: ReturnType<typeof kinesisEvent> | undefined;
      jest.isolateModules(() => {
        const testing = jest.requireActual<typeof import('../../../src/testing/index.js')>(
          '../../../src/testing/index.js',
        );
        event = testing.kinesisEvent([{ data: { orderId: 'o-1' } }]);
      });
      return event!.Records[0].eventID;
    };

    expect(build()).not.toBe(build());
  });

  it('kinesisEvent: sequence numbers keep increasing across calls', () => {
    const numbers = [
      ...sequenceNumbers(kinesisEvent([{ data: 1 }, { data: 2 }])),
      ...sequenceNumbers(kinesisEvent([{ data: 3 }])),
    ];
    expect(ascending(numbers)).toBe(true);
  });

  it('kinesisEvent: a record built with an earlier sequence number is its redelivery', async () => {
    const handled: unknown[] = [];
    const handler = kinesisConsumer(async (record) => void handled.push(record.data), {
      journal: new MemoryJournal(),
      consumer: 'orders',
    });
    const [record] = kinesisEvent([{ data: { orderId: 'o-1' } }]).Records;

    await handler({ Records: [record] }, lambdaContext());
    await handler(
      kinesisEvent([{ data: { orderId: 'o-1' }, sequenceNumber: record.kinesis.sequenceNumber }]),
      lambdaContext(),
    );

    expect(handled).toEqual([{ orderId: 'o-1' }]);
  });

  it('dynamodbStreamEvent: each call builds new records with sequence numbers increasing across calls', async () => {
    const handled: unknown[] = [];
    const handler = dynamodbStreamConsumer(async (record) => void handled.push(record.keys.pk), {
      journal: new MemoryJournal(),
      consumer: 'orders',
    });
    const change = { keys: { pk: { S: 'o#1' } }, newImage: { pk: { S: 'o#1' } } };
    const first = dynamodbStreamEvent([change, change]);
    const second = dynamodbStreamEvent([change]);

    await handler(first, lambdaContext());
    await handler(second, lambdaContext());

    expect(handled).toEqual(['o#1', 'o#1', 'o#1']);
    expect(ascending([...first.Records, ...second.Records].map((r) => r.dynamodb!.SequenceNumber!))).toBe(true);
  });

  it('sqsEvent: FIFO sequence numbers keep increasing across calls, message ids are new on every call', () => {
    const first = sqsEvent([
      { body: 'a', messageGroupId: 'g-1' },
      { body: 'b', messageGroupId: 'g-1' },
    ]);
    const second = sqsEvent([{ body: 'a', messageGroupId: 'g-1' }]);
    const records = [...first.Records, ...second.Records];

    expect(ascending(records.map((r) => r.attributes.SequenceNumber!))).toBe(true);
    expect(new Set(records.map((r) => r.messageId)).size).toBe(3);
  });
});

describe('idemkit/testing path parameters', () => {
  it.each([
    ['/payments/{id}/refunds', '/payments/p-1/refunds', { id: 'p-1' }],
    ['/{proxy+}', '/payments/p-1/refunds', { proxy: 'payments/p-1/refunds' }],
    ['/files/{key+}', '/files/a/b.txt', { key: 'a/b.txt' }],
  ])('fills the parameters the route %s names from %s, as API Gateway does', (route, path, expected) => {
    expect(httpApiEvent({ route, path }).pathParameters).toEqual(expected);
    expect(restApiEvent({ route, path }).pathParameters).toEqual(expected);
  });

  it.each([
    ['/payments', '/payments'],
    ['/payments/{id}', '/payments/p-1/refunds'],
    ['/orders/{id}', '/payments/p-1'],
  ])('fills none when the route %s names none or does not match %s', (route, path) => {
    expect(httpApiEvent({ route, path }).pathParameters).toBeUndefined();
    expect(restApiEvent({ route, path }).pathParameters).toBeNull();
  });
});

describe('idemkit/testing lambdaContext', () => {
  it('counts the remaining time down from the chosen value', async () => {
    const context = lambdaContext({ remainingTimeMs: 1000 });
    const before = context.getRemainingTimeInMillis();
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(before).toBeLessThanOrEqual(1000);
    expect(context.getRemainingTimeInMillis()).toBeLessThan(before);
  });

  it('gives every context its own request id unless one is chosen', () => {
    expect(lambdaContext().awsRequestId).not.toBe(lambdaContext().awsRequestId);
    expect(lambdaContext({ awsRequestId: 'r-1', xRayTraceId: 'Root=1-a' })).toMatchObject({
      awsRequestId: 'r-1',
      xRayTraceId: 'Root=1-a',
    });
  });
});

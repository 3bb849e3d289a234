import { GetItemCommand } from '@aws-sdk/client-dynamodb';
import { SendMessageBatchCommand } from '@aws-sdk/client-sqs';
import middy from '@middy/core';
import {
  httpIdempotency,
  idempotencyOf,
  makeIdempotent,
  OutboxTooLargeError,
  type HttpResponse,
} from '../../src/index.js';
import { httpEvent, lambdaContext } from '../support/lambda.js';
import { OUTBOX_EVENT_ID_ATTRIBUTE, outboxDispatcher } from '../../src/outbox/index.js';
import { localStreamPoller } from '../support/streams.js';
import { createQueue, localSqsClient, receiveExactly } from '../support/sqs.js';
import { mrscRegions, type Region } from './support/mrsc-profile.js';
import { OUTBOX_IN_RECORD_MAX_BYTES } from '../../src/entries/multi-region.js';
import { requestPk } from '../../src/entries/journal.js';

const quiet = { info: () => undefined, error: () => undefined } as never;

describe('the outbox of a multi-Region journal, bounded by its record’s item, not by a transaction', () => {
  /** A function that publishes `count` events of `detailBytes` bytes each, in `region`. */
  const publisher = (region: Region, runs: string[]) =>
    makeIdempotent(
      async (input: { orderId: string; count: number; detailBytes: number }, context) => {
        runs.push(input.orderId);
        const scope = idempotencyOf(context);
        for (let i = 0; i < input.count; i++)
          scope.publish({ type: 'line.added', detail: { line: i, pad: 'x'.repeat(input.detailBytes) } });
        return { orderId: input.orderId };
      },
      { journal: region.journal, operation: 'place', key: (input) => input.orderId, logger: quiet },
    );

  it('carries more than a transaction’s 100 items of events when their bytes fit in the record', async () => {
    const { regions } = await mrscRegions();
    const region = regions[0]!;

    const placed = await publisher(region, [])({ orderId: 'o-many', count: 250, detailBytes: 10 });

    expect(placed).toEqual({ orderId: 'o-many' });
    const item = await region.client.send(
      new GetItemCommand({
        TableName: region.journal.tableName,
        Key: { pk: { S: requestPk('-', 'place', 'o-many') } },
      }),
    );
    expect(JSON.parse(item.Item!.outboxEvents!.S!)).toHaveLength(250);
  });

  it('refuses events past the item’s bytes with OutboxTooLargeError naming their size, and completes nothing', async () => {
    const { regions } = await mrscRegions();
    const region = regions[0]!;
    const runs: string[] = [];

    const placing = publisher(region, runs)({ orderId: 'o-large', count: 5, detailBytes: 100 * 1024 });

    const error = await placing.catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OutboxTooLargeError);
    expect(error).toMatchObject({ code: 'outbox-too-large', roomBytes: OUTBOX_IN_RECORD_MAX_BYTES });
    expect((error as OutboxTooLargeError).eventBytes).toBeGreaterThan(5 * 100 * 1024);
    expect((error as Error).message).toContain(`${(error as OutboxTooLargeError).eventBytes} bytes of events`);
    expect(await region.journal.get(requestPk('-', 'place', 'o-large'))).toBeUndefined();
    expect(runs).toEqual(['o-large']);
  });

  it('answers an HTTP request whose events do not fit with a 500 problem naming the code', async () => {
    const { regions } = await mrscRegions();
    const guarded = middy(async (_event: unknown, context: object) => {
      idempotencyOf(context).publish({ type: 'order.placed', detail: { pad: 'x'.repeat(OUTBOX_IN_RECORD_MAX_BYTES) } });
      return { statusCode: 201, body: '{}' };
    }).use(httpIdempotency({ journal: regions[0]!.journal, logger: quiet }));

    const answer = (await guarded(httpEvent({ key: 'order-large' }), lambdaContext())) as Required<HttpResponse>;

    expect(answer.statusCode).toBe(500);
    expect(JSON.parse(answer.body).type).toBe('urn:idemkit:problem:outbox-too-large');
  });

  it('names the room the record leaves when its own attributes outgrow what it keeps for them', async () => {
    const { regions } = await mrscRegions();
    const region = regions[0]!;
    const place = makeIdempotent(
      async (input: { orderId: string }, context) => {
        const scope = idempotencyOf(context);
        // Evidence of 40 KB: more than the record keeps for its own attributes.
        await scope.recordEvidence({ note: 'e'.repeat(40 * 1024) });
        scope.publish({ type: 'order.placed', detail: { pad: 'x'.repeat(OUTBOX_IN_RECORD_MAX_BYTES - 1024) } });
        return { orderId: input.orderId };
      },
      { journal: region.journal, operation: 'place', key: (input) => input.orderId, logger: quiet },
    );

    const error = await place({ orderId: 'o-evidence' }).catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(OutboxTooLargeError);
    const { eventBytes, roomBytes } = error as OutboxTooLargeError;
    expect(roomBytes).toBeLessThan(eventBytes);
    // DynamoDB's 400 KB item, less the evidence at least.
    expect(roomBytes).toBeLessThan(400 * 1024 - 40 * 1024);
  });
});

describe('the outbox of a multi-Region journal, dispatched from the completed record’s stream image', () => {
  async function orderPlaced() {
    const { tableName, regions } = await mrscRegions();
    const region = regions[1]!;
    const ids: string[] = [];
    const place = makeIdempotent(
      async (input: { orderId: string }, context) => {
        const scope = idempotencyOf(context);
        ids.push(scope.publish({ type: 'order.placed', detail: { orderId: input.orderId } }));
        ids.push(scope.publish({ type: 'stock.reserve', detail: { orderId: input.orderId, sku: 'a' } }));
        return { orderId: input.orderId };
      },
      { journal: region.journal, operation: 'place', key: (input) => input.orderId, logger: quiet },
    );
    await place({ orderId: 'o-1' });
    return { tableName, region, ids };
  }

  it('sends each event of the record once, shaped as an outbox item’s message, with the ids publish() returned', async () => {
    const { tableName, region, ids } = await orderPlaced();
    const sqs = localSqsClient();
    const queue = await createQueue(sqs);
    const poller = localStreamPoller(tableName);

    const { response } = await poller.deliver(
      outboxDispatcher({ queueUrl: queue.url, client: sqs, journalClient: region.client }),
    );

    expect(response).toEqual({ batchItemFailures: [] });
    const received = await receiveExactly(sqs, queue.url, 2);
    const bodies = received.map((message) => JSON.parse(message.Body!));
    expect(bodies.map((body) => body.eventId).sort()).toEqual([...ids].sort());
    expect(bodies.find((body) => body.eventId === ids[0])).toEqual({
      eventId: ids[0],
      type: 'order.placed',
      detail: { orderId: 'o-1' },
      occurredAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
    expect(received.map((m) => m.MessageAttributes?.[OUTBOX_EVENT_ID_ATTRIBUTE]?.StringValue).sort()).toEqual(
      [...ids].sort(),
    );
    // Nothing written back: the events live and go with their record.
    expect(region.sent.filter((command) => command === 'BatchWriteItemCommand')).toEqual([]);
  });

  it('reports the record when one of its events cannot be sent, so the retry sends all of them again', async () => {
    const { tableName, region } = await orderPlaced();
    const sqs = localSqsClient();
    const queue = await createQueue(sqs);
    let refused = false;
    sqs.middlewareStack.add(
      (next, context) => async (args) => {
        if (!refused && context.commandName === SendMessageBatchCommand.name) {
          refused = true;
          throw Object.assign(new Error('throttled'), { name: 'ThrottlingException', $metadata: {} });
        }
        return next(args);
      },
      { step: 'initialize', name: 'refuseOnce' },
    );
    const poller = localStreamPoller(tableName);
    const dispatch = outboxDispatcher({ queueUrl: queue.url, client: sqs, journalClient: region.client });

    const first = await poller.deliver(dispatch);
    const second = await poller.deliver(dispatch);

    expect(first.response?.batchItemFailures).toHaveLength(1);
    expect(second.response).toEqual({ batchItemFailures: [] });
    expect(await receiveExactly(sqs, queue.url, 2)).toHaveLength(2);
  });
});

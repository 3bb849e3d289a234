import { SendMessageBatchCommand } from '@aws-sdk/client-sqs';
import { idempotencyOf, makeIdempotent } from '../../src/index.js';
import { OUTBOX_EVENT_ID_ATTRIBUTE, outboxDispatcher } from '../../src/outbox/index.js';
import { localStreamPoller } from '../support/streams.js';
import { createQueue, localSqsClient, receiveExactly } from '../support/sqs.js';
import { mrscRegions } from './support/mrsc-profile.js';

const quiet = { info: () => undefined, error: () => undefined } as never;

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

import { Logger } from '@aws-lambda-powertools/logger';
import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { OUTBOX_EVENT_ID_ATTRIBUTE, outboxDispatcher } from '../../src/outbox/index.js';
import { createQueue, localSqsClient, queueDepth, receiveExactly, receiveMessages } from '../support/sqs.js';
import { GetItemCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { localClient } from '../support/dynamodb.js';
import { journalWithStream, outboxSequenceNumbers, putNoise, putOutboxEvents } from './outbox-fixtures.js';

const getItem = async (client: DynamoDBClient, tableName: string, pk: string) =>
  (await client.send(new GetItemCommand({ TableName: tableName, Key: { pk: { S: pk } }, ConsistentRead: true }))).Item;

const events = [
  { eventId: 'e1', type: 'order.confirmed', detail: { orderId: 'o-1', items: [{ sku: 'a', quantity: 1 }] } },
  { eventId: 'e2', type: 'order.cancelled', detail: { orderId: 'o-2' } },
  { eventId: 'e3', type: 'order.confirmed', detail: null },
];

describe('outboxDispatcher', () => {
  it('sends each outbox insert to the queue with its parsed detail and an eventId attribute', async () => {
    const { client, tableName, poller } = await journalWithStream();
    await putOutboxEvents(client, tableName, events);
    const sqs = localSqsClient();
    const queue = await createQueue(sqs);

    const { response } = await poller.deliver(outboxDispatcher({ queueUrl: queue.url, client: sqs }));

    expect(response).toEqual({ batchItemFailures: [] });
    const received = await receiveExactly(sqs, queue.url, 3);
    const bodies = received
      .map((message) => JSON.parse(message.Body!))
      .sort((a, b) => a.eventId.localeCompare(b.eventId));
    expect(bodies).toEqual(events.map((event) => ({ ...event, occurredAt: '2026-11-30T10:00:00.000Z' })));
    expect(
      received.map((message) => message.MessageAttributes?.[OUTBOX_EVENT_ID_ATTRIBUTE]?.StringValue).sort(),
    ).toEqual(['e1', 'e2', 'e3']);
  });

  it('starts the TTL of each sent item only after it was sent', async () => {
    const { client, tableName, poller } = await journalWithStream();
    await putOutboxEvents(client, tableName, events.slice(0, 2));
    const sqs = localSqsClient();
    const queue = await createQueue(sqs);
    const before = await getItem(client, tableName, 'outbox#e1');

    await poller.deliver(
      outboxDispatcher({ queueUrl: queue.url, client: sqs, journalClient: client, retentionSeconds: 3600 }),
    );

    const after = await getItem(client, tableName, 'outbox#e1');
    expect(before?.expiresAt).toBeUndefined();
    expect(Number(after?.expiresAt?.N)).toBeGreaterThan(Date.now() / 1000 + 3500);
    expect(after?.dispatchedAt?.N).toBeDefined();
    expect(after?.type).toEqual(before?.type);
  });

  it('reports sent records when their TTL cannot be started, so a retry sends and marks them again', async () => {
    const { client, tableName, poller } = await journalWithStream();
    await putOutboxEvents(client, tableName, events.slice(0, 2));
    const sqs = localSqsClient();
    const queue = await createQueue(sqs);
    const closed = localClient({ endpoint: 'http://127.0.0.1:9', maxAttempts: 1 });

    const { event, response } = await poller.deliver(
      outboxDispatcher({ queueUrl: queue.url, client: sqs, journalClient: closed }),
    );

    expect(response?.batchItemFailures.map((f) => f.itemIdentifier)).toEqual(outboxSequenceNumbers(event));
    expect((await getItem(client, tableName, 'outbox#e1'))?.expiresAt).toBeUndefined();
  });

  it('ignores other record kinds, updates and removals', async () => {
    const { client, tableName, poller } = await journalWithStream();
    await putOutboxEvents(client, tableName, events.slice(0, 1));
    await putNoise(client, tableName, 'outbox#e1');
    const sqs = localSqsClient();
    const queue = await createQueue(sqs);

    const { event, response } = await poller.deliver(outboxDispatcher({ queueUrl: queue.url, client: sqs }));

    expect(event.Records.map((record) => record.eventName)).toEqual(['INSERT', 'INSERT', 'MODIFY', 'REMOVE']);
    expect(response).toEqual({ batchItemFailures: [] });
    expect(await queueDepth(sqs, queue.url)).toBe(1);
  });

  it('sets the event id as deduplication id and the event type as group on a FIFO queue', async () => {
    const { client, tableName, poller } = await journalWithStream();
    await putOutboxEvents(client, tableName, events.slice(0, 2));
    const sqs = localSqsClient();
    const queue = await createQueue(sqs, { fifo: true });
    const dispatch = outboxDispatcher({ queueUrl: queue.url, client: sqs });
    const { event } = await poller.deliver(dispatch);

    await dispatch(event);

    expect(await queueDepth(sqs, queue.url)).toBe(2);
    const received = (await receiveExactly(sqs, queue.url, 2, 2_500)).sort((a, b) =>
      a.Attributes!.MessageDeduplicationId!.localeCompare(b.Attributes!.MessageDeduplicationId!),
    );
    expect(
      received.map((message) => [message.Attributes?.MessageDeduplicationId, message.Attributes?.MessageGroupId]),
    ).toEqual([
      ['e1', 'order.confirmed'],
      ['e2', 'order.cancelled'],
    ]);
  });

  it('groups FIFO messages with a configured messageGroupId', async () => {
    const { client, tableName, poller } = await journalWithStream();
    await putOutboxEvents(client, tableName, events.slice(0, 1));
    const sqs = localSqsClient();
    const queue = await createQueue(sqs, { fifo: true });

    await poller.deliver(
      outboxDispatcher({
        queueUrl: queue.url,
        client: sqs,
        messageGroupId: (message) => (message.detail as { orderId: string }).orderId,
      }),
    );

    const [message] = await receiveMessages(sqs, queue.url, { waitSeconds: 1 });
    expect(message.Attributes?.MessageGroupId).toBe('o-1');
  });

  it('reports the first entry SQS refused and every later outbox record', async () => {
    const { client, tableName, poller } = await journalWithStream();
    await putOutboxEvents(client, tableName, events);
    const event = await poller.read();
    const sqs = new SQSClient({ region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
    // A per-entry refusal inside a successful batch call is a fault no local server produces on demand.
    mockClient(sqs)
      .on(SendMessageBatchCommand)
      .resolves({
        Successful: [
          { Id: '0', MessageId: 'm0', MD5OfMessageBody: '' },
          { Id: '2', MessageId: 'm2', MD5OfMessageBody: '' },
        ],
        Failed: [{ Id: '1', Code: 'InternalError', SenderFault: false }],
      });

    const response = await outboxDispatcher({ queueUrl: 'http://127.0.0.1:9/000000000000/q', client: sqs })(event);

    expect(response.batchItemFailures.map((failure) => failure.itemIdentifier)).toEqual(
      outboxSequenceNumbers(event).slice(1),
    );
  });

  it('reports every outbox record when the queue cannot be reached, and logs why', async () => {
    const { client, tableName, poller } = await journalWithStream();
    await putOutboxEvents(client, tableName, events);
    const event = await poller.read();
    const logger = new Logger({ serviceName: 'test' });
    const logged = jest.spyOn(logger, 'error');
    const closed = localSqsClient({ endpoint: 'http://127.0.0.1:9', maxAttempts: 1 });

    const response = await outboxDispatcher({ queueUrl: 'http://127.0.0.1:9/000000000000/q', client: closed, logger })(
      event,
    );

    expect(response.batchItemFailures.map((failure) => failure.itemIdentifier)).toEqual(outboxSequenceNumbers(event));
    expect(logged).toHaveBeenCalledWith(
      'outbox dispatch stopped',
      expect.objectContaining({ event_id: 'e1', reported: 3 }),
    );
  });

  it('redelivers the unsent records on the next stream read after a partial failure', async () => {
    const { client, tableName, poller } = await journalWithStream();
    await putOutboxEvents(client, tableName, events);
    const sqs = localSqsClient();
    const queue = await createQueue(sqs);
    const closed = localSqsClient({ endpoint: 'http://127.0.0.1:9', maxAttempts: 1 });
    await poller.deliver(outboxDispatcher({ queueUrl: queue.url, client: closed }));

    const { event, response } = await poller.deliver(outboxDispatcher({ queueUrl: queue.url, client: sqs }));

    expect(outboxSequenceNumbers(event)).toHaveLength(3);
    expect(response?.batchItemFailures).toEqual([]);
    expect(await receiveExactly(sqs, queue.url, 3)).toHaveLength(3);
  });

  it('reports a malformed outbox item and the records after it, after sending the ones before', async () => {
    const { client, tableName, poller } = await journalWithStream();
    await putOutboxEvents(client, tableName, [events[0], { eventId: '', type: 'broken', detail: {} }, events[1]]);
    const sqs = localSqsClient();
    const queue = await createQueue(sqs);
    const event = await poller.read();

    const response = await outboxDispatcher({ queueUrl: queue.url, client: sqs })(event);

    expect(response.batchItemFailures.map((failure) => failure.itemIdentifier)).toEqual(
      outboxSequenceNumbers(event).slice(1),
    );
    const [message] = await receiveMessages(sqs, queue.url, { waitSeconds: 1 });
    expect(JSON.parse(message.Body!).eventId).toBe('e1');
  });

  it('puts events on an EventBridge bus with the source, type as detail type and the message as detail', async () => {
    const { client, tableName, poller } = await journalWithStream();
    await putOutboxEvents(client, tableName, events.slice(0, 2));
    const event = await poller.read();
    // EventBridge has no local emulator here: the mock records the request and refuses entry 2.
    const bus = new EventBridgeClient({
      region: 'us-east-1',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    });
    const mock = mockClient(bus)
      .on(PutEventsCommand)
      .resolves({
        FailedEntryCount: 1,
        Entries: [{ EventId: 'x' }, { ErrorCode: 'InternalFailure', ErrorMessage: 'try again' }],
      });

    const response = await outboxDispatcher({ eventBusName: 'payments', source: 'payments.service', client: bus })(
      event,
    );

    const [entry] = mock.commandCalls(PutEventsCommand)[0].args[0].input.Entries!;
    expect(entry).toMatchObject({
      EventBusName: 'payments',
      Source: 'payments.service',
      DetailType: 'order.confirmed',
      Time: new Date('2026-11-30T10:00:00.000Z'),
    });
    expect(JSON.parse(entry.Detail!)).toEqual({ ...events[0], occurredAt: '2026-11-30T10:00:00.000Z' });
    expect(response.batchItemFailures.map((failure) => failure.itemIdentifier)).toEqual(
      outboxSequenceNumbers(event).slice(1),
    );
  });
});

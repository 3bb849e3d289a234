import { journalWithStream, putOutboxEvents } from './outbox-fixtures.js';

const three = ['e1', 'e2', 'e3'].map((eventId) => ({ eventId, type: 't', detail: {} }));

describe('StreamPoller on DynamoDB Local', () => {
  it('hands over the records as a Lambda stream event', async () => {
    const { client, tableName, poller } = await journalWithStream();
    await putOutboxEvents(client, tableName, three.slice(0, 1));

    const event = await poller.read();

    expect(event.Records).toHaveLength(1);
    expect(event.Records[0]).toMatchObject({
      eventName: 'INSERT',
      eventSource: 'aws:dynamodb',
      eventSourceARN: expect.stringContaining(tableName),
      dynamodb: {
        Keys: { pk: { S: 'outbox#e1' } },
        NewImage: { eventId: { S: 'e1' } },
        SequenceNumber: expect.any(String),
        StreamViewType: 'NEW_IMAGE',
      },
    });
    expect(event.Records[0].dynamodb?.ApproximateCreationDateTime).toEqual(expect.any(Number));
  });

  it('resumes before the lowest reported failure', async () => {
    const { client, tableName, poller } = await journalWithStream();
    await putOutboxEvents(client, tableName, three);
    const first = await poller.read();

    poller.acknowledge(first, { batchItemFailures: [{ itemIdentifier: first.Records[1].dynamodb!.SequenceNumber! }] });
    const second = await poller.read();

    expect(second.Records.map((record) => record.dynamodb?.Keys?.pk.S)).toEqual(['outbox#e2', 'outbox#e3']);
  });

  it('moves past fully handled records and returns an empty event when nothing is new', async () => {
    const { client, tableName, poller } = await journalWithStream();
    await putOutboxEvents(client, tableName, three);

    await poller.deliver(async () => ({ batchItemFailures: [] }));

    expect((await poller.read()).Records).toEqual([]);
  });

  it('keeps the checkpoint when the handler throws', async () => {
    const { client, tableName, poller } = await journalWithStream();
    await putOutboxEvents(client, tableName, three);

    await expect(poller.deliver(async () => Promise.reject(new Error('crash')))).rejects.toThrow('crash');

    expect((await poller.read()).Records).toHaveLength(3);
  });

  it('limits an event to the batch size', async () => {
    const { client, tableName, poller } = await journalWithStream(2);
    await putOutboxEvents(client, tableName, three);

    expect((await poller.read()).Records).toHaveLength(2);
  });
});

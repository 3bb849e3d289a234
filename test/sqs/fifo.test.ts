import type { SQSRecord } from 'aws-lambda';
import { sqsConsumer } from '../../src/sqs/index.js';
import { lambdaContext } from '../support/lambda.js';
import { createQueue, EventSourceMapping, localSqsClient, sendMessage, sqsRecord } from '../support/sqs.js';
import { localJournal, recordingHandler } from './consumer-fixtures.js';

const inGroup = (groupId: string, body: string): SQSRecord => sqsRecord(body, { groupId });

describe('sqsConsumer on a FIFO queue', () => {
  it('reports a failed record and every later record of its group, and processes the other group', async () => {
    // Lambda hands several messages of one group in one batch; the emulator returns one per group and receive.
    const { journal } = await localJournal();
    const [a1, b1, a2, a3, b2, a4] = [
      inGroup('A', 'a1'),
      inGroup('B', 'b1'),
      inGroup('A', 'a2'),
      inGroup('A', 'a3'),
      inGroup('B', 'b2'),
      inGroup('A', 'a4'),
    ];
    const { handled, handler } = recordingHandler((record) => record.body === 'a2');

    const response = await sqsConsumer(handler, { journal, consumer: 'fifo' })(
      { Records: [a1, b1, a2, a3, b2, a4] },
      lambdaContext(),
    );

    expect(response.batchItemFailures).toEqual([a2, a3, a4].map((record) => ({ itemIdentifier: record.messageId })));
    expect(handled).toEqual(['a1', 'b1', 'b2']);
  });

  it('runs the groups side by side but each group in order when concurrency allows', async () => {
    const { journal } = await localJournal();
    const order: string[] = [];
    let groupBStarted!: () => void;
    const startOfGroupB = new Promise<void>((resolve) => (groupBStarted = resolve));
    const consumer = sqsConsumer(
      async (record) => {
        order.push(`start ${record.body}`);
        if (record.body === 'b1') groupBStarted();
        // a1 can only finish once b1 runs beside it.
        if (record.body === 'a1')
          await Promise.race([
            startOfGroupB,
            new Promise((_, reject) => setTimeout(() => reject(new Error('b1 never started')), 5_000)),
          ]);
        order.push(`end ${record.body}`);
      },
      { journal, consumer: 'fifo', concurrency: 2 },
    );

    const response = await consumer(
      { Records: [inGroup('A', 'a1'), inGroup('A', 'a2'), inGroup('B', 'b1')] },
      lambdaContext(),
    );

    expect(response.batchItemFailures).toEqual([]);
    expect(order.indexOf('start a2')).toBeGreaterThan(order.indexOf('end a1'));
  });

  it('keeps a group in order through a failure and redelivery from the queue', async () => {
    const { journal } = await localJournal();
    const sqs = localSqsClient();
    const queue = await createQueue(sqs, { fifo: true, visibilityTimeoutSeconds: 1 });
    const { handled, handler } = recordingHandler((record, attempt) => record.body === 'a2' && attempt === 1);
    for (const [group, body] of [
      ['A', 'a1'],
      ['A', 'a2'],
      ['B', 'b1'],
      ['A', 'a3'],
    ])
      await sendMessage(sqs, queue.url, body, { groupId: group, deduplicationId: body });

    await new EventSourceMapping(sqs, queue, sqsConsumer(handler, { journal, consumer: 'fifo' })).drain();

    expect(handled.filter((body) => body.startsWith('a'))).toEqual(['a1', 'a2', 'a3']);
    expect(handled).toContain('b1');
  });
});

import { GetItemCommand } from '@aws-sdk/client-dynamodb';
import { Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { EventBus } from 'aws-cdk-lib/aws-events';
import {
  GuardedQueueConsumer,
  IdemkitFunction,
  IdempotencyJournalTable,
  OutboxDispatcher,
  secureQueue,
} from '../../lib/index.js';
import { IdemkitEnvironment, InvalidOptionsError } from '../../src/core/index.js';
import { DynamoDBJournal, MemoryJournal, messagePk } from '../../src/journal/index.js';
import { outboxDispatcher, OUTBOX_EVENT_ID_ATTRIBUTE } from '../../src/outbox/index.js';
import { sqsConsumer } from '../../src/sqs/index.js';
import { CONSUMER_ENTRY, DISPATCHER_ENTRY, testApp } from '../cdk/test-app.js';
import { createJournalTable, localClient } from '../support/dynamodb.js';
import { lambdaContext } from '../support/lambda.js';
import { createQueue, localSqsClient, receiveExactly, sqsRecord } from '../support/sqs.js';
import { journalWithStream, putOutboxEvents } from '../outbox/outbox-fixtures.js';

/** Environment names of every function in the template, minus the ones Powertools and Node read. */
function toolkitVariablesOf(template: Template): string[] {
  const functions = Object.values(template.findResources('AWS::Lambda::Function'));
  return functions
    .flatMap((fn) => Object.keys(fn.Properties.Environment?.Variables ?? {}))
    .filter((name) => name !== 'NODE_OPTIONS');
}

/** Runs `body` with `variables` set in `process.env`, restoring the previous values after. */
async function withEnvironment<T>(
  variables: Record<string, string | undefined>,
  body: () => Promise<T> | T,
): Promise<T> {
  const previous = Object.fromEntries(Object.keys(variables).map((name) => [name, process.env[name]]));
  const assign = (values: Record<string, string | undefined>) => {
    for (const [name, value] of Object.entries(values)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  };
  assign(variables);
  try {
    return await body();
  } finally {
    assign(previous);
  }
}

const NO_DESTINATION = {
  [IdemkitEnvironment.outboxQueueUrl]: undefined,
  [IdemkitEnvironment.outboxEventBusName]: undefined,
};

describe('what the constructs set is what the runtime reads', () => {
  const stack = new Stack(testApp(), 'Wiring');
  const journal = new IdempotencyJournalTable(stack, 'Journal');
  new IdemkitFunction(stack, 'Guarded', { entry: CONSUMER_ENTRY, journal, operationName: 'POST /orders' });
  new GuardedQueueConsumer(stack, 'Orders', { journal, entry: CONSUMER_ENTRY });
  new OutboxDispatcher(stack, 'ToQueue', {
    journal,
    entry: DISPATCHER_ENTRY,
    destinationQueue: secureQueue(stack, 'Destination'),
  });
  new OutboxDispatcher(stack, 'ToBus', { journal, entry: DISPATCHER_ENTRY, eventBus: new EventBus(stack, 'Bus') });
  const template = Template.fromStack(stack);

  it('sets only variables the runtime reads', () => {
    const set = new Set(toolkitVariablesOf(template));
    expect([...set].sort()).toEqual(Object.values(IdemkitEnvironment).sort());
  });

  it('lets DynamoDBJournal take its table from IDEMKIT_TABLE_NAME', async () => {
    const client = localClient();
    const tableName = await createJournalTable(client);
    const pk = 'req#-#env#k-1';

    await withEnvironment({ [IdemkitEnvironment.tableName]: tableName }, async () => {
      const fromEnvironment = new DynamoDBJournal({ client });
      await fromEnvironment.reserve({ pk, fingerprint: 'f', leaseMs: 1_000, ttlSeconds: 60 });
    });

    const item = await client.send(
      new GetItemCommand({ TableName: tableName, Key: { pk: { S: pk } }, ConsistentRead: true }),
    );
    expect(item.Item?.status?.S).toBe('IN_PROGRESS');
  });

  it('prefers an explicit tableName over IDEMKIT_TABLE_NAME', async () => {
    const journalTable = await withEnvironment(
      { [IdemkitEnvironment.tableName]: 'from-environment' },
      () => new DynamoDBJournal({ tableName: 'explicit' }),
    );
    expect(journalTable.tableName).toBe('explicit');
  });

  it('refuses the first use of a DynamoDBJournal with neither a tableName nor IDEMKIT_TABLE_NAME, naming both', async () => {
    await withEnvironment({ [IdemkitEnvironment.tableName]: undefined }, async () => {
      const journal = new DynamoDBJournal();
      await expect(
        journal.reserve({ pk: 'req#-#env#k-2', fingerprint: 'f', leaseMs: 1_000, ttlSeconds: 60 }),
      ).rejects.toThrow(/'tableName' option or set IDEMKIT_TABLE_NAME/);
    });
  });

  it('lets sqsConsumer take its consumer name from IDEMKIT_CONSUMER', async () => {
    const memory = new MemoryJournal();
    const record = sqsRecord('{"orderId":"o-1"}', { messageId: 'm-1' });

    const response = await withEnvironment({ [IdemkitEnvironment.consumer]: 'orders-from-env' }, () =>
      sqsConsumer(async () => undefined, { journal: memory })({ Records: [record] }, lambdaContext()),
    );

    expect(response.batchItemFailures).toEqual([]);
    expect((await memory.get(messagePk('orders-from-env', 'm-1')))?.status).toBe('COMPLETED');
  });

  it('refuses an sqsConsumer with neither a consumer nor IDEMKIT_CONSUMER, naming both', async () => {
    await withEnvironment({ [IdemkitEnvironment.consumer]: undefined }, () => {
      expect(() => sqsConsumer(async () => undefined, { journal: new MemoryJournal() })).toThrow(
        /option 'consumer' is required \(or set IDEMKIT_CONSUMER\)/,
      );
    });
  });

  it('lets outboxDispatcher send to the queue named by IDEMKIT_OUTBOX_QUEUE_URL', async () => {
    const { client, tableName, poller } = await journalWithStream();
    await putOutboxEvents(client, tableName, [
      { eventId: 'env-1', type: 'order.confirmed', detail: { orderId: 'o-1' } },
    ]);
    const sqs = localSqsClient();
    const queue = await createQueue(sqs);

    // The default client reaches the emulator through AWS_ENDPOINT_URL_SQS, set by the global setup.
    const dispatch = await withEnvironment({ ...NO_DESTINATION, [IdemkitEnvironment.outboxQueueUrl]: queue.url }, () =>
      outboxDispatcher(),
    );
    const { response } = await poller.deliver(dispatch);

    expect(response).toEqual({ batchItemFailures: [] });
    const [message] = await receiveExactly(sqs, queue.url, 1);
    expect(message.MessageAttributes?.[OUTBOX_EVENT_ID_ATTRIBUTE]?.StringValue).toBe('env-1');
  });

  it('refuses an outboxDispatcher with no destination in its options or its environment, naming both', async () => {
    await withEnvironment(NO_DESTINATION, () => {
      expect(() => outboxDispatcher()).toThrow(InvalidOptionsError);
      expect(() => outboxDispatcher()).toThrow(/IDEMKIT_OUTBOX_QUEUE_URL and IDEMKIT_OUTBOX_EVENT_BUS_NAME/);
    });
  });

  it('refuses an environment that names both a queue and a bus', async () => {
    await withEnvironment(
      {
        [IdemkitEnvironment.outboxQueueUrl]: 'http://127.0.0.1:9/000000000000/q',
        [IdemkitEnvironment.outboxEventBusName]: 'bus',
      },
      () => {
        expect(() => outboxDispatcher()).toThrow(InvalidOptionsError);
      },
    );
  });

  it('refuses a client without an explicit destination: it could be for the wrong service', async () => {
    await withEnvironment({ ...NO_DESTINATION, [IdemkitEnvironment.outboxEventBusName]: 'bus' }, () => {
      expect(() => outboxDispatcher({ client: localSqsClient() } as never)).toThrow(
        /'client' needs an explicit 'queueUrl' or 'eventBusName'/,
      );
    });
  });
});

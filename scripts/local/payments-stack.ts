import { DynamoDBClient, PutItemCommand, UpdateTimeToLiveCommand } from '@aws-sdk/client-dynamodb';
import { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { SQSClient } from '@aws-sdk/client-sqs';

import { ExampleTableKey } from '../../src/handlers/service-config.js';
import { startDynamoDBLocal, type DynamoDBLocal } from '../../src/testing/index.js';
import { startSqsLocal, type SqsLocal } from './sqs-local.mjs';
import { createQueue, type LocalQueue } from './sqs-queues.js';
import { StreamPoller } from './stream-poller.js';
import { createStringKeyTable } from './tables.js';
import { PARTITION_KEY, TTL_ATTRIBUTE } from '../../src/entries/journal.js';

/** The example payments service's storage and queue, running on this machine. */
export interface LocalPaymentsStack {
  readonly dynamodb: DynamoDBLocal;
  readonly sqs: SqsLocal;
  readonly client: DynamoDBClient;
  readonly doc: DynamoDBDocumentClient;
  readonly sqsClient: SQSClient;
  readonly tables: {
    readonly journal: string;
    readonly payments: string;
    readonly stock: string;
    readonly paymentTotals: string;
  };
  readonly orderEvents: LocalQueue;
  /** Reads the journal's stream like the dispatcher's event source mapping. */
  readonly outboxStream: StreamPoller;
  /** Reads the payments table's stream like the read model consumer's event source mapping. */
  readonly paymentsStream: StreamPoller;
  /** Stops the SQS emulator and DynamoDB Local (by its PID). */
  stop(): Promise<void>;
}

/** Options of {@link startLocalPaymentsStack}. */
export interface LocalPaymentsStackOptions {
  /** Called about once a second while DynamoDB Local starts. */
  readonly onProgress?: (elapsedMs: number) => void;
  /**
   * Visibility timeout of the order-events queue.
   * @default 2
   */
  readonly visibilityTimeoutSeconds?: number;
  /** Aborting it during start-up stops what already started and rejects. */
  readonly signal?: AbortSignal;
}

const LOCAL_CREDENTIALS = { accessKeyId: 'local', secretAccessKey: 'local' };
const REGION = 'us-east-1';

/**
 * Starts DynamoDB Local and the SQS emulator on 127.0.0.1 and creates the example service's
 * tables from the same schema constants the CDK stack uses, plus the order-events queue.
 */
export async function startLocalPaymentsStack(options: LocalPaymentsStackOptions = {}): Promise<LocalPaymentsStack> {
  const started = await Promise.allSettled([
    startDynamoDBLocal({ onProgress: options.onProgress, signal: options.signal }),
    startSqsLocal(),
  ]);
  const [dynamodbStart, sqsStart] = started;
  if (dynamodbStart.status === 'rejected' || sqsStart.status === 'rejected') {
    // One may have started while the other failed: stop it before reporting the failure.
    await Promise.allSettled(
      started.map((outcome) => (outcome.status === 'fulfilled' ? outcome.value.stop() : undefined)),
    );
    throw dynamodbStart.status === 'rejected' ? dynamodbStart.reason : (sqsStart as PromiseRejectedResult).reason;
  }
  const dynamodb = dynamodbStart.value;
  const sqs = sqsStart.value;
  try {
    const client = new DynamoDBClient({ endpoint: dynamodb.endpoint, region: REGION, credentials: LOCAL_CREDENTIALS });
    const sqsClient = new SQSClient({ endpoint: sqs.endpoint, region: REGION, credentials: LOCAL_CREDENTIALS });
    const tables = {
      journal: 'payments-journal',
      payments: 'payments',
      stock: 'stock',
      paymentTotals: 'payment-totals',
    };
    await createStringKeyTable(client, tables.journal, PARTITION_KEY, { stream: true });
    await client.send(
      new UpdateTimeToLiveCommand({
        TableName: tables.journal,
        TimeToLiveSpecification: { AttributeName: TTL_ATTRIBUTE, Enabled: true },
      }),
    );
    await createStringKeyTable(client, tables.payments, ExampleTableKey.payments, { stream: true });
    await createStringKeyTable(client, tables.stock, ExampleTableKey.stock);
    await createStringKeyTable(client, tables.paymentTotals, ExampleTableKey.paymentTotals);
    const orderEvents = await createQueue(sqsClient, {
      visibilityTimeoutSeconds: options.visibilityTimeoutSeconds ?? 2,
    });
    const streams = new DynamoDBStreamsClient({
      endpoint: dynamodb.endpoint,
      region: REGION,
      credentials: LOCAL_CREDENTIALS,
    });
    return {
      dynamodb,
      sqs,
      client,
      doc: DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } }),
      sqsClient,
      tables,
      orderEvents,
      outboxStream: new StreamPoller({ tableName: tables.journal, dynamodb: client, streams }),
      paymentsStream: new StreamPoller({ tableName: tables.payments, dynamodb: client, streams }),
      stop: async () => {
        await Promise.allSettled([sqs.stop(), dynamodb.stop()]);
      },
    };
  } catch (error) {
    await Promise.allSettled([sqs.stop(), dynamodb.stop()]);
    throw error;
  }
}

/** Puts `available` units of `sku` in the stock table. */
export async function seedStock(stack: LocalPaymentsStack, sku: string, available: number): Promise<void> {
  await stack.client.send(
    new PutItemCommand({
      TableName: stack.tables.stock,
      Item: { [ExampleTableKey.stock]: { S: sku }, available: { N: String(available) } },
    }),
  );
}

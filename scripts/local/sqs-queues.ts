import {
  CreateQueueCommand,
  DeleteMessageBatchCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  SendMessageCommand,
  SQSClient,
  type Message,
} from '@aws-sdk/client-sqs';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { randomUUID } from 'node:crypto';
import { toSqsRecord } from './sqs-records.js';

/** A client for a local SQS emulator (by default the one the test setup started). */
export function localSqsClient(options: { endpoint?: string; maxAttempts?: number } = {}): SQSClient {
  return new SQSClient({
    endpoint: options.endpoint ?? process.env.IDEMKIT_TEST_SQS_ENDPOINT,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    maxAttempts: options.maxAttempts,
  });
}

/** A queue on the emulator. */
export interface LocalQueue {
  readonly url: string;
  readonly arn: string;
}

/** Creates a standard or FIFO queue with a unique name. */
export async function createQueue(
  client: SQSClient,
  options: { fifo?: boolean; visibilityTimeoutSeconds?: number } = {},
): Promise<LocalQueue> {
  const name = `q-${randomUUID().slice(0, 8)}${options.fifo ? '.fifo' : ''}`;
  const attributes: Record<string, string> = { VisibilityTimeout: String(options.visibilityTimeoutSeconds ?? 30) };
  if (options.fifo) attributes.FifoQueue = 'true';
  const { QueueUrl } = await client.send(new CreateQueueCommand({ QueueName: name, Attributes: attributes }));
  const { Attributes } = await client.send(new GetQueueAttributesCommand({ QueueUrl, AttributeNames: ['QueueArn'] }));
  return { url: QueueUrl!, arn: Attributes!.QueueArn! };
}

/** Sends one message; `attributes` become String message attributes. */
export async function sendMessage(
  client: SQSClient,
  queueUrl: string,
  body: string,
  options: { attributes?: Record<string, string>; groupId?: string; deduplicationId?: string } = {},
): Promise<string> {
  const attributes = Object.fromEntries(
    Object.entries(options.attributes ?? {}).map(([name, value]) => [name, { DataType: 'String', StringValue: value }]),
  );
  const out = await client.send(
    new SendMessageCommand({
      QueueUrl: queueUrl,
      MessageBody: body,
      MessageAttributes: attributes,
      MessageGroupId: options.groupId,
      MessageDeduplicationId: options.deduplicationId,
    }),
  );
  return out.MessageId!;
}

/** Receives up to `max` messages with every system and message attribute. */
export async function receiveMessages(
  client: SQSClient,
  queueUrl: string,
  options: { max?: number; waitSeconds?: number } = {},
): Promise<Message[]> {
  const out = await client.send(
    new ReceiveMessageCommand({
      QueueUrl: queueUrl,
      MaxNumberOfMessages: options.max ?? 10,
      WaitTimeSeconds: options.waitSeconds ?? 0,
      MessageSystemAttributeNames: ['All'],
      MessageAttributeNames: ['All'],
    }),
  );
  return out.Messages ?? [];
}

/** Receives until `count` messages are in hand (or `timeoutMs` passes). */
export async function receiveExactly(
  client: SQSClient,
  queueUrl: string,
  count: number,
  timeoutMs = 10_000,
): Promise<Message[]> {
  const messages: Message[] = [];
  const deadline = Date.now() + timeoutMs;
  while (messages.length < count && Date.now() < deadline) {
    messages.push(
      ...(await receiveMessages(client, queueUrl, { max: Math.min(10, count - messages.length), waitSeconds: 1 })),
    );
  }
  return messages;
}

/** Deletes messages by receipt handle. */
export async function deleteMessages(client: SQSClient, queueUrl: string, messages: readonly Message[]): Promise<void> {
  for (let i = 0; i < messages.length; i += 10) {
    const entries = messages
      .slice(i, i + 10)
      .map((message, j) => ({ Id: String(j), ReceiptHandle: message.ReceiptHandle! }));
    await client.send(new DeleteMessageBatchCommand({ QueueUrl: queueUrl, Entries: entries }));
  }
}

/** What one delivery of an {@link EventSourceMapping} did. */
export interface Delivery {
  readonly received: number;
  readonly failed: readonly string[];
  readonly deleted: number;
}

type SqsHandler = (event: SQSEvent) => Promise<SQSBatchResponse | void>;

/**
 * Stands in for Lambda's SQS event source mapping with `ReportBatchItemFailures`: receives
 * a batch, invokes the handler, deletes only the messages not reported as failures. A
 * thrown handler, or a simulated crash, deletes nothing: the batch comes back after the
 * visibility timeout.
 */
export class EventSourceMapping {
  constructor(
    private readonly client: SQSClient,
    private readonly queue: LocalQueue,
    private readonly handler: SqsHandler,
    private readonly batchSize = 10,
  ) {}

  /** One receive-invoke-delete cycle. `crashAfterInvoke` ends the "container" before it deletes. */
  async deliverOnce(options: { crashAfterInvoke?: boolean; waitSeconds?: number } = {}): Promise<Delivery> {
    const messages = await receiveMessages(this.client, this.queue.url, {
      max: this.batchSize,
      waitSeconds: options.waitSeconds ?? 1,
    });
    if (messages.length === 0) return { received: 0, failed: [], deleted: 0 };
    const event: SQSEvent = { Records: messages.map((message) => toSqsRecord(message, this.queue)) };
    const response = await this.handler(event);
    const failed = (response?.batchItemFailures ?? []).map((failure) => failure.itemIdentifier);
    if (options.crashAfterInvoke) return { received: messages.length, failed, deleted: 0 };
    const succeeded = messages.filter((message) => !failed.includes(message.MessageId!));
    await deleteMessages(this.client, this.queue.url, succeeded);
    return { received: messages.length, failed, deleted: succeeded.length };
  }

  /** Delivers until the queue stays empty for one long poll, or `timeoutMs` passes. */
  async drain(timeoutMs = 15_000): Promise<Delivery[]> {
    const deliveries: Delivery[] = [];
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      const delivery = await this.deliverOnce({ waitSeconds: 2 });
      if (delivery.received === 0) break;
      deliveries.push(delivery);
    }
    return deliveries;
  }
}

/** Messages waiting in a queue, visible or in flight. */
export async function queueDepth(client: SQSClient, queueUrl: string): Promise<number> {
  const { Attributes } = await client.send(
    new GetQueueAttributesCommand({
      QueueUrl: queueUrl,
      AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
    }),
  );
  return (
    Number(Attributes?.ApproximateNumberOfMessages ?? 0) +
    Number(Attributes?.ApproximateNumberOfMessagesNotVisible ?? 0)
  );
}

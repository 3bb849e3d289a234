import type {
  AttributeValue as StreamAttributeValue,
  DynamoDBStreamEvent,
  KinesisStreamEvent,
  SQSEvent,
} from 'aws-lambda';
import { createHash, randomUUID } from 'node:crypto';

const REGION = 'us-east-1';
const ACCOUNT_ID = '123456789012';

/** One SQS message of an {@link sqsEvent}. */
export interface SqsMessageOptions {
  /**
   * Message body: a string as it is, anything else as JSON.
   */
  readonly body: unknown;
  /**
   * The message id SQS assigned (the guard's default `messageId`). Two records with one id are
   * one message delivered twice.
   * @default - a new UUID
   */
  readonly messageId?: string;
  /**
   * String message attributes (`fromMessageAttribute('eventId')` reads them).
   * @default - none
   */
  readonly attributes?: Record<string, string>;
  /**
   * FIFO message group; the queue is then `<queueName>.fifo`.
   * @default - a standard queue
   */
  readonly messageGroupId?: string;
  /**
   * How many times the message has been received (`ApproximateReceiveCount`).
   * @default 1
   */
  readonly receiveCount?: number;
}

/**
 * An SQS event as a Lambda event source mapping delivers it: one record per message, in order.
 *
 * @example
 * const event = sqsEvent([{ body: { orderId: 'o-1' }, messageId: 'm-1' }, { body: { orderId: 'o-1' }, messageId: 'm-1' }]);
 * const { batchItemFailures } = await handler(event, lambdaContext());
 */
export function sqsEvent(
  messages: readonly SqsMessageOptions[],
  options: { readonly queueName?: string } = {},
): SQSEvent {
  const fifo = messages.some((message) => message.messageGroupId !== undefined);
  const queueName = `${(options.queueName ?? 'test-queue').replace(/\.fifo$/, '')}${fifo ? '.fifo' : ''}`;
  return {
    Records: messages.map((message, index) => {
      const body = typeof message.body === 'string' ? message.body : JSON.stringify(message.body);
      const sentAt = String(Date.now());
      return {
        messageId: message.messageId ?? randomUUID(),
        receiptHandle: `receipt-${index}-${randomUUID()}`,
        body,
        attributes: {
          ApproximateReceiveCount: String(message.receiveCount ?? 1),
          SentTimestamp: sentAt,
          SenderId: 'AIDATESTSENDER',
          ApproximateFirstReceiveTimestamp: sentAt,
          ...(message.messageGroupId === undefined
            ? {}
            : {
                MessageGroupId: message.messageGroupId,
                MessageDeduplicationId: createHash('sha256').update(body).digest('hex'),
                SequenceNumber: String(index + 1).padStart(20, '0'),
              }),
        },
        messageAttributes: Object.fromEntries(
          Object.entries(message.attributes ?? {}).map(([name, value]) => [
            name,
            { stringValue: value, dataType: 'String', stringListValues: [], binaryListValues: [] },
          ]),
        ),
        md5OfBody: createHash('md5').update(body).digest('hex'),
        eventSource: 'aws:sqs',
        eventSourceARN: `arn:aws:sqs:${REGION}:${ACCOUNT_ID}:${queueName}`,
        awsRegion: REGION,
      };
    }),
  };
}

/** One record of a {@link kinesisEvent}. */
export interface KinesisRecordOptions {
  /** The record's data: a string as it is, anything else as JSON; delivered base64-encoded. */
  readonly data: unknown;
  /**
   * Partition key.
   * @default 'partition-1'
   */
  readonly partitionKey?: string;
  /**
   * Sequence number (the batch item failure the guard reports).
   * @default - increasing with the record's position
   */
  readonly sequenceNumber?: string;
}

/**
 * A Kinesis event as a Lambda event source mapping delivers it: records in order, `eventID` =
 * `shardId-000000000000:<sequenceNumber>` (the default `messageId` of a stream consumer).
 *
 * @example const event = kinesisEvent([{ data: { orderId: 'o-1' } }, { data: { orderId: 'o-2' } }]);
 */
export function kinesisEvent(
  records: readonly KinesisRecordOptions[],
  options: { readonly streamName?: string } = {},
): KinesisStreamEvent {
  const streamName = options.streamName ?? 'test-stream';
  const base = 49_590_338_271_490_256_608_559_692_538_361_571_095_921_575_989_136_588_898n;
  return {
    Records: records.map((record, index) => {
      const sequenceNumber = record.sequenceNumber ?? String(base + BigInt(index));
      const data = typeof record.data === 'string' ? record.data : JSON.stringify(record.data);
      return {
        kinesis: {
          kinesisSchemaVersion: '1.0',
          partitionKey: record.partitionKey ?? 'partition-1',
          sequenceNumber,
          data: Buffer.from(data, 'utf8').toString('base64'),
          approximateArrivalTimestamp: Date.now() / 1000,
        },
        eventSource: 'aws:kinesis',
        eventVersion: '1.0',
        eventID: `shardId-000000000000:${sequenceNumber}`,
        eventName: 'aws:kinesis:record',
        invokeIdentityArn: `arn:aws:iam::${ACCOUNT_ID}:role/test-consumer`,
        awsRegion: REGION,
        eventSourceARN: `arn:aws:kinesis:${REGION}:${ACCOUNT_ID}:stream/${streamName}`,
      };
    }),
  };
}

/** One record of a {@link dynamodbStreamEvent}, in DynamoDB's attribute-value JSON. */
export interface DynamoDBStreamRecordOptions {
  /**
   * What happened to the item.
   * @default 'INSERT'
   */
  readonly eventName?: 'INSERT' | 'MODIFY' | 'REMOVE';
  /** The item's key attributes, e.g. `{ pk: { S: 'order#1' } }`. */
  readonly keys: Record<string, StreamAttributeValue>;
  /**
   * The item after the change (absent for REMOVE).
   * @default - none
   */
  readonly newImage?: Record<string, StreamAttributeValue>;
  /**
   * The item before the change (absent for INSERT).
   * @default - none
   */
  readonly oldImage?: Record<string, StreamAttributeValue>;
  /**
   * The record's event id (the default `messageId` of a stream consumer).
   * @default - a new hex id
   */
  readonly eventID?: string;
  /**
   * Sequence number (the batch item failure the guard reports).
   * @default - increasing with the record's position
   */
  readonly sequenceNumber?: string;
}

/**
 * A DynamoDB Streams event as a Lambda event source mapping delivers it (records in order, the
 * images in attribute-value JSON: use `marshall` from `@aws-sdk/util-dynamodb` to build them).
 *
 * @example
 * const event = dynamodbStreamEvent([{ keys: { pk: { S: 'order#1' } }, newImage: { pk: { S: 'order#1' }, total: { N: '5' } } }]);
 */
export function dynamodbStreamEvent(
  records: readonly DynamoDBStreamRecordOptions[],
  options: { readonly tableName?: string } = {},
): DynamoDBStreamEvent {
  const tableName = options.tableName ?? 'test-table';
  const viewType =
    records.some((record) => record.oldImage) && records.some((record) => record.newImage)
      ? 'NEW_AND_OLD_IMAGES'
      : records.some((record) => record.oldImage)
        ? 'OLD_IMAGE'
        : 'NEW_IMAGE';
  return {
    Records: records.map((record, index) => ({
      eventID: record.eventID ?? randomUUID().replace(/-/g, ''),
      eventName: record.eventName ?? 'INSERT',
      eventVersion: '1.1',
      eventSource: 'aws:dynamodb',
      awsRegion: REGION,
      dynamodb: {
        ApproximateCreationDateTime: Math.floor(Date.now() / 1000),
        Keys: record.keys,
        ...(record.newImage ? { NewImage: record.newImage } : {}),
        ...(record.oldImage ? { OldImage: record.oldImage } : {}),
        SequenceNumber: record.sequenceNumber ?? String(100_000_000_000 + index),
        SizeBytes: Buffer.byteLength(JSON.stringify(record)),
        StreamViewType: viewType,
      },
      eventSourceARN: `arn:aws:dynamodb:${REGION}:${ACCOUNT_ID}:table/${tableName}/stream/2026-01-01T00:00:00.000`,
    })),
  };
}

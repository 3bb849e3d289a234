import type {
  AttributeValue as StreamAttributeValue,
  DynamoDBStreamEvent,
  KinesisStreamEvent,
  SQSEvent,
} from 'aws-lambda';
import { createHash, randomInt, randomUUID } from 'node:crypto';

const REGION = 'us-east-1';
const ACCOUNT_ID = '123456789012';
/** Kinesis sequence numbers are 56 digits long: ours are this plus {@link nextSequence}. */
const KINESIS_SEQUENCE_BASE = 49_590_338_271_490_256_608_559_692_538_361_571_095_921_575_989_136_588_898n;

/**
 * The last sequence number a builder handed out. Every call continues from it, so no two calls
 * build the same record (a Kinesis `eventID` is its sequence number: a repeat would be a
 * redelivery to the guard) and numbers increase within every shard and message group. Jest loads
 * this module anew for each test file, and test files may share a journal table: the start is the
 * clock (10^12 numbers a millisecond) plus a random slot of 10^6 numbers, so a later load counts
 * on above an earlier one, and two loads in the same millisecond (two workers) meet with odds of
 * one in a million.
 */
let lastSequence = BigInt(Date.now()) * 10n ** 12n + BigInt(randomInt(1_000_000)) * 10n ** 6n;

/** A sequence number no builder of this module instance handed out before, above all it did. */
function nextSequence(): bigint {
  lastSequence += 1n;
  return lastSequence;
}

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
   * FIFO message group; the queue is then `<queueName>.fifo` and the record gets a
   * `SequenceNumber`, increasing across every call.
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
 * Every call makes new messages (new message ids and receipt handles; FIFO sequence numbers
 * continuing those of earlier calls); only a `messageId` given twice, in one call or two, is one
 * message delivered again.
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
                SequenceNumber: String(nextSequence()),
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
   * Sequence number (the batch item failure the guard reports, and the record's `eventID`). Give
   * the one of an earlier record to build its redelivery; it is used as given.
   * @default - a new one, above every sequence number built before, in this call or an earlier one
   */
  readonly sequenceNumber?: string;
}

/**
 * A Kinesis event as a Lambda event source mapping delivers it: records in order, `eventID` =
 * `shardId-000000000000:<sequenceNumber>` (the default `messageId` of a stream consumer). Every
 * call makes new records, their sequence numbers increasing across calls: a redelivery is the
 * same event passed again, or records built with the `sequenceNumber`s of the first ones.
 *
 * @example
 * const event = kinesisEvent([{ data: { orderId: 'o-1' } }, { data: { orderId: 'o-2' } }]);
 * await handler(event, lambdaContext());
 * await handler(event, lambdaContext()); // Lambda's redelivery: both records are duplicates
 * await handler(kinesisEvent([{ data: { orderId: 'o-1' } }]), lambdaContext()); // a new record (a producer retry)
 */
export function kinesisEvent(
  records: readonly KinesisRecordOptions[],
  options: { readonly streamName?: string } = {},
): KinesisStreamEvent {
  const streamName = options.streamName ?? 'test-stream';
  return {
    Records: records.map((record) => {
      const sequenceNumber = record.sequenceNumber ?? String(KINESIS_SEQUENCE_BASE + nextSequence());
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
   * The record's event id (the default `messageId` of a stream consumer). Give the one of an
   * earlier record to build its redelivery.
   * @default - a new hex id
   */
  readonly eventID?: string;
  /**
   * Sequence number (the batch item failure the guard reports); used as given.
   * @default - a new one, above every sequence number built before, in this call or an earlier one
   */
  readonly sequenceNumber?: string;
}

/**
 * A DynamoDB Streams event as a Lambda event source mapping delivers it (records in order, the
 * images in attribute-value JSON: use `marshall` from `@aws-sdk/util-dynamodb` to build them).
 * Every call makes new records (new event ids, sequence numbers increasing across calls): a
 * redelivery is the same event passed again, or records built with the first ones' `eventID`s.
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
    Records: records.map((record) => ({
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
        SequenceNumber: record.sequenceNumber ?? String(nextSequence()),
        SizeBytes: Buffer.byteLength(JSON.stringify(record)),
        StreamViewType: viewType,
      },
      eventSourceARN: `arn:aws:dynamodb:${REGION}:${ACCOUNT_ID}:table/${tableName}/stream/2026-01-01T00:00:00.000`,
    })),
  };
}

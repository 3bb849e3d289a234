import type { DynamoDBRecord, KinesisStreamRecord } from 'aws-lambda';
import { resolveConsumerSettings, type ConsumerOptions, type ConsumerSettings } from '../consumer/index.js';
import { readOneOf } from '../core/index.js';

/** How a Kinesis record's data is decoded, once, before anything reads it. */
export type KinesisDataFormat = 'json' | 'text' | 'bytes';

/**
 * A Kinesis record as `kinesisConsumer` hands it to the handler, the message id and the
 * fingerprint: the Lambda record unchanged, plus its data decoded once, on first read (base64,
 * then JSON by default).
 */
export type KinesisConsumerRecord<T = unknown> = KinesisStreamRecord & {
  /** The record's data: parsed JSON (`dataFormat: 'json'`), UTF-8 text (`'text'`) or the raw bytes (`'bytes'`). */
  readonly data: T;
};

/**
 * A DynamoDB Streams record as `dynamodbStreamConsumer` hands it over: the Lambda record
 * unchanged, plus its key and images unmarshalled to plain values. Every number is exact (a
 * `StreamNumber`): a `number` when a JavaScript number is that value, a `bigint` for an
 * integer beyond `Number.MAX_SAFE_INTEGER`, the SDK's `NumberValue` for any other fraction.
 * Binary attributes stay the base64 strings Lambda delivers.
 */
export type DynamoDBStreamConsumerRecord<T = Record<string, unknown>> = DynamoDBRecord & {
  /** The item's key attributes. */
  readonly keys: Record<string, unknown>;
  /** The item after the change (absent for `REMOVE`, or when the stream view holds no new image). */
  readonly newImage?: T;
  /** The item before the change (absent for `INSERT`, or when the stream view holds no old image). */
  readonly oldImage?: T;
};

/** Options of `kinesisConsumer`. */
export interface KinesisConsumerOptions<T = unknown> extends ConsumerOptions<KinesisConsumerRecord<T>> {
  /**
   * Name of this consumer: the scope of its inbox records (`msg#<consumer>#<messageId>`) and
   * the `Consumer` metric dimension.
   * @default process.env.IDEMKIT_CONSUMER (set by the `GuardedStreamConsumer` construct)
   * @example 'payment-events'
   */
  readonly consumer?: string;
  /**
   * The id that makes two records one message. The default, the record's `eventID` (shard and
   * sequence number), makes Lambda's redeliveries of a batch one message each; a producer's own
   * retry arrives as a new record with a new sequence number, and only an id carried in the
   * data (an order id, an event id) makes it the same message. A throw or an empty id makes the
   * record fail (`invalid_key`).
   * @default the record's `eventID`
   * @example (record) => record.data.orderId
   */
  readonly messageId?: (record: KinesisConsumerRecord<T>) => string;
  /**
   * What the fingerprint covers; a record whose fingerprint differs from the one its message id
   * was first seen with is refused (`PayloadMismatchError`) and stops the shard.
   * @default the SHA-256 of the record's data
   * @example (record) => ({ orderId: record.data.orderId, amount: record.data.amount })
   */
  readonly fingerprint?: (record: KinesisConsumerRecord<T>) => unknown;
  /**
   * How the base64 data is decoded for `record.data` (on its first read). With `'json'`, reading
   * `record.data` of a record whose data is not JSON throws `RequestInvalidError`: in `messageId`
   * the record is unreadable (`invalid_key`), in the handler it failed; either way it stops the
   * shard until the event source gives up on it.
   * @default 'json'
   */
  readonly dataFormat?: KinesisDataFormat;
}

/** Options of `dynamodbStreamConsumer`. */
export interface DynamoDBStreamConsumerOptions<T = Record<string, unknown>> extends ConsumerOptions<
  DynamoDBStreamConsumerRecord<T>
> {
  /**
   * Name of this consumer: the scope of its inbox records (`msg#<consumer>#<messageId>`) and
   * the `Consumer` metric dimension.
   * @default process.env.IDEMKIT_CONSUMER (set by the `GuardedStreamConsumer` construct)
   * @example 'payments-read-model'
   */
  readonly consumer?: string;
  /**
   * The id that makes two records one message. The default, the record's `eventID`, is unique
   * per change: every redelivery of that change is the same message.
   * @default the record's `eventID`
   * @example (record) => `${record.keys.pk}#${record.newImage?.version}`
   */
  readonly messageId?: (record: DynamoDBStreamConsumerRecord<T>) => string;
  /**
   * What the fingerprint covers. A `bigint` counts by its digits, a `NumberValue` by its text.
   * @default the canonical JSON of the event name, keys and images as delivered (every number its digits)
   * @example (record) => ({ id: record.keys.id, amount: record.newImage?.amount })
   */
  readonly fingerprint?: (record: DynamoDBStreamConsumerRecord<T>) => unknown;
}

/** Defaults of {@link KinesisConsumerOptions} besides the shared guard defaults. */
export const DEFAULT_KINESIS_CONSUMER_OPTIONS = Object.freeze({
  /** The record's `eventID`: Lambda's redelivery of a record keeps it. */
  messageId: (record: KinesisStreamRecord): string => record.eventID,
  dataFormat: 'json' as KinesisDataFormat,
});

/** Defaults of {@link DynamoDBStreamConsumerOptions} besides the shared guard defaults. */
export const DEFAULT_DYNAMODB_STREAM_CONSUMER_OPTIONS = Object.freeze({
  /** The record's `eventID`: one per change, kept by Lambda's redelivery. */
  messageId: (record: DynamoDBRecord): string => record.eventID ?? '',
});

/** Resolved `kinesisConsumer` options. */
export interface KinesisConsumerSettings<T> extends ConsumerSettings<KinesisConsumerRecord<T>> {
  readonly dataFormat: KinesisDataFormat;
}

/** Validates `kinesisConsumer` options (unknown names throw, naming the option) and resolves defaults. */
export function resolveKinesisConsumerOptions<T>(options: KinesisConsumerOptions<T>): KinesisConsumerSettings<T> {
  const factory = 'kinesisConsumer';
  const settings = resolveConsumerSettings(
    { name: factory, ownOptions: ['dataFormat'], defaultMessageId: DEFAULT_KINESIS_CONSUMER_OPTIONS.messageId },
    options,
  );
  const dataFormat = readOneOf(factory, 'dataFormat', options.dataFormat, DEFAULT_KINESIS_CONSUMER_OPTIONS.dataFormat, [
    'json',
    'text',
    'bytes',
  ]);
  return { ...settings, dataFormat };
}

/** Validates `dynamodbStreamConsumer` options (unknown names throw, naming the option) and resolves defaults. */
export function resolveDynamoDBStreamConsumerOptions<T>(
  options: DynamoDBStreamConsumerOptions<T>,
): ConsumerSettings<DynamoDBStreamConsumerRecord<T>> {
  return resolveConsumerSettings(
    {
      name: 'dynamodbStreamConsumer',
      ownOptions: [],
      defaultMessageId: DEFAULT_DYNAMODB_STREAM_CONSUMER_OPTIONS.messageId,
    },
    options,
  );
}

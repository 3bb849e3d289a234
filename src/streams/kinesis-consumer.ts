import type { Context, KinesisStreamBatchResponse, KinesisStreamEvent, KinesisStreamRecord } from 'aws-lambda';
import { RequestInvalidError, sha256Hex } from '../core/index.js';
import { orderedStreamConsumer } from './ordered-stream.js';
import {
  resolveKinesisConsumerOptions,
  type KinesisConsumerOptions,
  type KinesisConsumerRecord,
  type KinesisDataFormat,
} from './stream-consumer-options.js';

/**
 * Handles one Kinesis record inside a guarded attempt; `idempotencyOf(context)` works inside.
 * A resolved promise marks the record processed (its value is not stored); a rejection stops
 * the batch at this record.
 */
export type KinesisRecordHandler<T = unknown> = (
  record: KinesisConsumerRecord<T>,
  context: Context,
) => Promise<unknown>;

/**
 * Guards a Kinesis Data Streams Lambda handler record by record, in order: each message is
 * handled at most once per consumer (`msg#<consumer>#<messageId>`). Enable
 * `ReportBatchItemFailures` on the event source mapping (the `GuardedStreamConsumer` construct
 * does):
 *
 * - records run one after another, in the shard's order;
 * - a completed message is skipped (`DuplicateSuppressed`, log status `replay`): a batch that
 *   Lambda sends again after a failure runs only what did not complete;
 * - the first record that fails, is in progress elsewhere (another batch holds it, as with a
 *   parallelization factor above 1), needs review, or cannot be read stops the batch: its
 *   sequence number is the one batch item failure, the records after it are not run, and
 *   Lambda resumes there.
 *
 * The data is decoded once, on first read (base64, then JSON unless `dataFormat` says
 * otherwise), into `record.data`, which the handler, `messageId` and `fingerprint` all share;
 * data that cannot be decoded throws `RequestInvalidError` where `record.data` is read. Lambda's own
 * redeliveries share an `eventID` (the default message id); a producer's retry of `PutRecord`
 * is a new record, which only an id inside the data recognises.
 *
 * @example
 * export const handler = kinesisConsumer<{ orderId: string; sku: string }>(
 *   async (record, context) => {
 *     idempotencyOf(context).stage({ Update: { TableName: 'stock', Key: { sku: record.data.sku },
 *       UpdateExpression: 'ADD reserved :one', ExpressionAttributeValues: { ':one': 1 } } });
 *   },
 *   { journal, consumer: 'orders', messageId: (record) => record.data.orderId },
 * );
 */
export function kinesisConsumer<T = unknown>(
  recordHandler: KinesisRecordHandler<T>,
  options: KinesisConsumerOptions<T>,
): (event: KinesisStreamEvent, context?: Context) => Promise<KinesisStreamBatchResponse> {
  const settings = resolveKinesisConsumerOptions(options);
  return orderedStreamConsumer(
    {
      factory: 'kinesisConsumer',
      eventNoun: 'a Kinesis event',
      noun: 'kinesis record',
      sequenceNumberOf: (record: KinesisStreamRecord) => record?.kinesis?.sequenceNumber || undefined,
      shardOf: (record: KinesisStreamRecord) => record.eventID?.split(':')[0],
      read: (record: KinesisStreamRecord) => withDecodedData<T>(record, settings.dataFormat),
      defaultFingerprint: (record: KinesisConsumerRecord<T>) => sha256Hex(record.kinesis.data ?? ''),
    },
    settings,
    recordHandler,
    options,
  );
}

/**
 * The record with `data` decoded on first read and kept: a handler that reads only the Lambda
 * fields never meets a decoding error, and one that reads `data` gets its typed error there.
 */
function withDecodedData<T>(record: KinesisStreamRecord, format: KinesisDataFormat): KinesisConsumerRecord<T> {
  let decoded: { value: T } | undefined;
  return Object.defineProperty({ ...record }, 'data', {
    enumerable: true,
    get: () => (decoded ??= { value: decodeData<T>(record, format) }).value,
  }) as KinesisConsumerRecord<T>;
}

function decodeData<T>(record: KinesisStreamRecord, format: KinesisDataFormat): T {
  const data = record.kinesis.data;
  if (typeof data !== 'string') throw new RequestInvalidError('The Kinesis record has no data');
  const bytes = Buffer.from(data, 'base64');
  if (format === 'bytes') return bytes as T;
  const text = bytes.toString('utf8');
  if (format === 'text') return text as T;
  try {
    return JSON.parse(text) as T;
  } catch (error) {
    throw new RequestInvalidError(`The Kinesis record's data is not JSON: ${(error as Error).message}`, {
      cause: error,
    });
  }
}

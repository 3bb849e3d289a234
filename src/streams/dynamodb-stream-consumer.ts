import type { Context, DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { fingerprintOf } from '../engine/index.js';
import { orderedStreamConsumer } from './ordered-stream.js';
import {
  resolveDynamoDBStreamConsumerOptions,
  type DynamoDBStreamConsumerOptions,
  type DynamoDBStreamConsumerRecord,
} from './stream-consumer-options.js';
import { readStreamImage } from './stream-image.js';

/**
 * Handles one DynamoDB Streams record inside a guarded attempt; `idempotencyOf(context)`
 * works inside. A resolved promise marks the record processed; a rejection stops the batch at
 * this record.
 */
export type DynamoDBStreamRecordHandler<T = Record<string, unknown>> = (
  record: DynamoDBStreamConsumerRecord<T>,
  context: Context,
) => Promise<unknown>;

/**
 * Guards a DynamoDB Streams (change data capture) Lambda handler record by record, in order,
 * so that every redelivery of a change runs its side effects once: a projection into a read
 * model, a notification, a call downstream. The same ordered semantics as `kinesisConsumer`
 * (records in order; the first failure, in-progress or needs-review record stops the batch and
 * is the one batch item failure reported; Lambda resumes there and completed records are
 * skipped). The key and images are unmarshalled once into `record.keys`, `record.newImage` and
 * `record.oldImage`, every number exact (a `StreamNumber`: `number`, `bigint` beyond the safe
 * integers, the SDK's `NumberValue` for a fraction no JavaScript number equals).
 *
 * @example
 * export const handler = dynamodbStreamConsumer(
 *   async (record, context) => {
 *     if (!record.newImage) return;
 *     idempotencyOf(context).stage({ Update: { TableName: 'daily-totals', Key: { day: record.newImage.day },
 *       UpdateExpression: 'ADD total :amount', ExpressionAttributeValues: { ':amount': record.newImage.amount } } });
 *   },
 *   { journal, consumer: 'payments-read-model' },
 * );
 */
export function dynamodbStreamConsumer<T = Record<string, unknown>>(
  recordHandler: DynamoDBStreamRecordHandler<T>,
  options: DynamoDBStreamConsumerOptions<T>,
): (event: DynamoDBStreamEvent, context?: Context) => Promise<DynamoDBBatchResponse> {
  return orderedStreamConsumer(
    {
      factory: 'dynamodbStreamConsumer',
      eventNoun: 'a DynamoDB Streams event',
      noun: 'dynamodb stream record',
      sequenceNumberOf: (record: DynamoDBRecord) => record?.dynamodb?.SequenceNumber || undefined,
      shardOf: (record: DynamoDBRecord) => record.eventSourceARN,
      read: (record: DynamoDBRecord) => readChange<T>(record),
      // The attribute-value JSON as delivered: every number counts by its digits, whatever the handler gets.
      defaultFingerprint: (record: DynamoDBStreamConsumerRecord<T>) =>
        fingerprintOf({
          eventName: record.eventName ?? null,
          keys: record.dynamodb?.Keys ?? null,
          newImage: record.dynamodb?.NewImage ?? null,
          oldImage: record.dynamodb?.OldImage ?? null,
        }),
    },
    resolveDynamoDBStreamConsumerOptions(options),
    recordHandler,
    options,
  );
}

function readChange<T>(record: DynamoDBRecord): DynamoDBStreamConsumerRecord<T> {
  const change = record.dynamodb ?? {};
  const image = (value: unknown) => (value ? (readStreamImage(value) as T) : undefined);
  return {
    ...record,
    keys: change.Keys ? readStreamImage(change.Keys) : {},
    newImage: image(change.NewImage),
    oldImage: image(change.OldImage),
  };
}

import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { IdempotencyEngine } from '../engine/index.js';
import { InvalidOptionsError, RequestInvalidError } from '../errors/index.js';
import { MetricDimension, Telemetry } from '../telemetry/index.js';
import { attemptRecord, type RecordGuard, type SqsRecordHandler } from './record-attempt.js';
import { forEachBounded, lanesOf, messageGroupOf } from './record-lanes.js';
import { resolveConsumerOptions, type SqsConsumerOptions } from './sqs-consumer-options.js';

/**
 * Guards an SQS Lambda handler record by record: each message is handled at most once per
 * consumer (`msg#<consumer>#<messageId>`), so a redelivery after a crash or a duplicate send
 * changes nothing. Answers with partial batch failures (enable `ReportBatchItemFailures`
 * on the event source mapping):
 *
 * - a completed message is skipped (`DuplicateSuppressed`, log status `replay`);
 * - a message still in progress elsewhere, a failed handler, a payload mismatch, a commit
 *   conflict, an unreadable message id or an unreachable journal is reported in
 *   `batchItemFailures` by its `messageId`, and comes back after the visibility timeout;
 * - on a FIFO queue, once a record fails, the later records of its message group are
 *   reported too, unprocessed, so the group keeps its order.
 *
 * Inside the handler, `idempotencyOf(context)` gives the record's scope: writes passed to
 * `stage()` commit in one transaction with the inbox record.
 *
 * @example
 * export const handler = sqsConsumer(
 *   async (record, context) => {
 *     const order = JSON.parse(record.body).detail;
 *     idempotencyOf(context).stage({ Update: { TableName: 'stock', Key: { sku: order.sku },
 *       UpdateExpression: 'SET available = available - :q', ConditionExpression: 'available >= :q',
 *       ExpressionAttributeValues: { ':q': order.quantity } } });
 *   },
 *   { journal, consumer: 'order-events', messageId: fromMessageAttribute('eventId') },
 * );
 */
export function sqsConsumer(recordHandler: SqsRecordHandler, options: SqsConsumerOptions): (event: SQSEvent, context?: Context) => Promise<SQSBatchResponse> {
  if (typeof recordHandler !== 'function') throw new InvalidOptionsError('sqsConsumer: the first argument must be a function');
  const settings = resolveConsumerOptions(options);
  const guard: RecordGuard = {
    settings,
    engine: new IdempotencyEngine(settings.engineSettings),
    telemetry: new Telemetry(MetricDimension.consumer, { metrics: options.metrics, logger: settings.logger, namespace: options.namespace }),
    handler: recordHandler,
  };

  return async function consumeBatch(event: SQSEvent, context: Context = {} as Context): Promise<SQSBatchResponse> {
    const records = event?.Records;
    if (!Array.isArray(records)) throw new RequestInvalidError('sqsConsumer: the event is not an SQS event (no Records array)');
    const failed = new Set<SQSRecord>();
    await forEachBounded(lanesOf(records), settings.concurrency, async function consumeLane(lane) {
      let groupFailed = false;
      let unprocessed = 0;
      for (const record of lane) {
        if (groupFailed) {
          failed.add(record);
          unprocessed++;
          continue;
        }
        const outcome = await attemptRecord(guard, record, context);
        if (outcome !== 'failed') continue;
        failed.add(record);
        groupFailed = messageGroupOf(record) !== undefined;
      }
      if (unprocessed > 0) {
        settings.logger.info('sqs records after a failure in their message group reported unprocessed', {
          consumer: settings.consumer,
          message_group_id: messageGroupOf(lane[0]),
          unprocessed,
        });
      }
    });
    // Identified by message id, never by position: Lambda matches failures to messages by id.
    return { batchItemFailures: records.filter((record) => failed.has(record)).map((record) => ({ itemIdentifier: record.messageId })) };
  };
}

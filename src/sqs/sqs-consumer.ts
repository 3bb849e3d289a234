import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { recordBatchConsumer, type RecordSource } from '../consumer/index.js';
import { InvalidOptionsError, RequestInvalidError, sha256Hex } from '../core/index.js';
import { resolveConsumerOptions, type SqsConsumerOptions } from './sqs-consumer-options.js';

/**
 * Handles one SQS record inside a guarded attempt; `idempotencyOf(context)` works inside.
 * A resolved promise marks the message processed (its value is not stored); a rejection
 * reports the record as failed.
 */
export type SqsRecordHandler = (record: SQSRecord, context: Context) => Promise<unknown>;

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
export function sqsConsumer(
  recordHandler: SqsRecordHandler,
  options: SqsConsumerOptions,
): (event: SQSEvent, context?: Context) => Promise<SQSBatchResponse> {
  if (typeof recordHandler !== 'function')
    throw new InvalidOptionsError('sqsConsumer: the first argument must be a function');
  const consumeRecords = recordBatchConsumer(SQS_SOURCE, resolveConsumerOptions(options), recordHandler, options);

  return async function consumeBatch(event: SQSEvent, context: Context = {} as Context): Promise<SQSBatchResponse> {
    const records = event?.Records;
    if (!Array.isArray(records))
      throw new RequestInvalidError('sqsConsumer: the event is not an SQS event (no Records array)');
    return consumeRecords(records, context);
  };
}

/**
 * An SQS batch: one lane per message group on a FIFO queue (batch order kept inside it, the
 * rest of a group reported after a failure), one lane per record on a standard queue.
 */
const SQS_SOURCE: RecordSource<SQSRecord, SQSRecord> = Object.freeze({
  noun: 'sqs record',
  identifierField: 'message_id',
  laneNoun: 'message group',
  itemIdentifier: (record: SQSRecord) => record.messageId,
  read: (record: SQSRecord) => record,
  defaultFingerprint: (record: SQSRecord) => sha256Hex(record.body ?? ''),
  lanesOf,
  afterFailure: () => 'report' as const,
  laneFields: (lane: readonly SQSRecord[]) => ({ message_group_id: messageGroupOf(lane[0]) }),
});

/** The message group of a FIFO record, undefined on a standard queue. */
function messageGroupOf(record: SQSRecord): string | undefined {
  return record.attributes?.MessageGroupId || undefined;
}

/**
 * Splits a batch into lanes that must run in order: one lane per message group on a FIFO
 * queue (batch order kept inside it), one lane per record on a standard queue.
 */
function lanesOf(records: readonly SQSRecord[]): SQSRecord[][] {
  const lanes: SQSRecord[][] = [];
  const byGroup = new Map<string, SQSRecord[]>();
  for (const record of records) {
    const group = messageGroupOf(record);
    if (group === undefined) {
      lanes.push([record]);
      continue;
    }
    let lane = byGroup.get(group);
    if (!lane) {
      lane = [];
      byGroup.set(group, lane);
      lanes.push(lane);
    }
    lane.push(record);
  }
  return lanes;
}

import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { IdempotencyError, InvalidOptionsError, RequestInvalidError, sha256Hex } from '../core/index.js';
import { fingerprintOf, IdempotencyEngine } from '../engine/index.js';
import { MetricDimension, Telemetry, type AttemptStatus } from '../telemetry/index.js';
import { resolveConsumerOptions, type ConsumerSettings, type SqsConsumerOptions } from './sqs-consumer-options.js';

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
  const settings = resolveConsumerOptions(options);
  const telemetry = new Telemetry(MetricDimension.consumer, { ...options, logger: settings.logger });
  const engine = new IdempotencyEngine(settings.engineSettings, telemetry);

  /**
   * Runs one record through the engine under `msg#<consumer>#<messageId>`. Never throws: a
   * record that cannot be handled is reported failed, with its reason logged, so one bad
   * record never fails its batch.
   */
  async function consumeRecord(record: SQSRecord, context: Context): Promise<boolean> {
    try {
      await engine.run(
        {
          kind: 'message',
          operation: settings.consumer,
          key: () => settings.messageId(record),
          keyLabel: 'The message id',
          fingerprint: () =>
            settings.fingerprint ? fingerprintOf(settings.fingerprint(record)) : sha256Hex(record.body ?? ''),
        },
        context,
        {
          invoke: (scoped) => recordHandler(record, scoped as Context),
          outcomeOf: () => ({ store: true, response: undefined }),
          onFailed: (error, status) => logFailure(settings, record, error, status),
        },
      );
      return true;
    } catch {
      return false;
    }
  }

  return async function consumeBatch(event: SQSEvent, context: Context = {} as Context): Promise<SQSBatchResponse> {
    const records = event?.Records;
    if (!Array.isArray(records))
      throw new RequestInvalidError('sqsConsumer: the event is not an SQS event (no Records array)');
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
        if (await consumeRecord(record, context)) continue;
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
    return {
      batchItemFailures: records
        .filter((record) => failed.has(record))
        .map((record) => ({ itemIdentifier: record.messageId })),
    };
  };
}

/** A collision with a running attempt is routine; anything else needs a look. */
function logFailure(
  settings: ConsumerSettings,
  record: SQSRecord,
  error: unknown,
  status: AttemptStatus | undefined,
): void {
  const code = error instanceof IdempotencyError ? error.code : undefined;
  const fields = {
    consumer: settings.consumer,
    message_id: record.messageId,
    idempotency_status: status,
    reason: error instanceof Error ? error.message : String(error),
    error_code: code,
  };
  if (status === 'in_progress') settings.logger.info('sqs record reported as failed', fields);
  else settings.logger.error('sqs record reported as failed', fields);
}

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

/** Runs `work` over `items` with at most `concurrency` in flight, starting them in order. */
async function forEachBounded<T>(
  items: readonly T[],
  concurrency: number,
  work: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) await work(items[next++]);
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
}

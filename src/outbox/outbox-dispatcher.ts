import type { DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { RequestInvalidError } from '../core/index.js';
import { resolveDispatcherOptions, type OutboxDispatcherOptions } from './dispatcher-options.js';
import {
  completionMessagesOf,
  isCompletionWithEvents,
  isOutboxInsert,
  outboxMessageOf,
  type OutboxMessage,
} from './outbox-message.js';
import { batchesOf } from './publisher.js';

/** An outbox event found in the stream batch, with the record it came from. */
interface Pending {
  readonly record: DynamoDBRecord;
  readonly message: OutboxMessage;
}

/** The first record that could not be dispatched, and why. */
interface Stop {
  readonly record: DynamoDBRecord;
  readonly reason: string;
  readonly eventId?: string;
}

/**
 * DynamoDB Streams handler that delivers the journal's outbox: each `INSERT` of an
 * `outbox#` item becomes one SQS message (body `{ eventId, type, detail, occurredAt }`,
 * String attribute `eventId`; on a FIFO queue `MessageDeduplicationId` = eventId) or one
 * EventBridge event (`DetailType` = type, `Detail` = that body). Every other record
 * (other kinds, `MODIFY`, `REMOVE`) is ignored, but for a record completed by a multi-Region
 * journal (`multiRegion: 'strong'`), whose outbox events travel inside it: each of its events
 * becomes one message of the same shape, in publishing order.
 *
 * Events go out in stream order. At the first event that cannot be sent, the dispatcher
 * stops and reports that record and every later outbox record in `batchItemFailures`
 * (by `dynamodb.SequenceNumber`; enable `ReportBatchItemFailures`): Lambda resumes the
 * shard from there, so order holds and nothing is lost. Delivery is at least once: an
 * event can be sent again after a retry, so consumers deduplicate on `eventId`
 * (`sqsConsumer` with `fromMessageAttribute('eventId')`).
 *
 * Outbox items expire by TTL only after dispatch: once sent, each item is written back with
 * `dispatchedAt` and `expiresAt` (`retentionSeconds`, default seven days). If that write
 * fails, the sent records are reported too, so they are sent again (consumers deduplicate)
 * rather than left without an expiry. An event that can never be sent keeps its item.
 * IAM: `dynamodb:BatchWriteItem` on the journal table (the CDK construct limits it to `outbox#` keys).
 *
 * @example
 * export const handler = outboxDispatcher(); // the destination the OutboxDispatcher construct set
 * export const toQueue = outboxDispatcher({ queueUrl: 'https://sqs.eu-west-1.amazonaws.com/123456789012/order-events' });
 */
export function outboxDispatcher(
  options: OutboxDispatcherOptions = {},
): (event: DynamoDBStreamEvent) => Promise<DynamoDBBatchResponse> {
  const { publisher, marker, logger } = resolveDispatcherOptions(options);

  async function send(pending: readonly Pending[]): Promise<Stop | undefined> {
    let offset = 0;
    for (const batch of batchesOf(pending.map((entry) => entry.message))) {
      const outcome = await publisher.publish(batch);
      if (outcome.kind === 'failed') {
        const failed = pending[offset + outcome.index];
        return { record: failed.record, reason: outcome.reason, eventId: failed.message.eventId };
      }
      offset += batch.length;
    }
    return undefined;
  }

  return async function dispatchOutbox(event: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> {
    const records = event?.Records;
    if (!Array.isArray(records))
      throw new RequestInvalidError('outboxDispatcher: the event is not a DynamoDB Streams event (no Records array)');
    const outboxRecords = records.filter((record) => isOutboxInsert(record) || isCompletionWithEvents(record));
    const pending: Pending[] = [];
    let stop: Stop | undefined;
    for (const record of outboxRecords) {
      try {
        const messages = isOutboxInsert(record) ? [outboxMessageOf(record)] : completionMessagesOf(record);
        pending.push(...messages.map((message) => ({ record, message })));
      } catch (error) {
        stop = { record, reason: (error as Error).message };
        break;
      }
    }
    stop = (await send(pending)) ?? stop;
    let firstFailed = stop ? outboxRecords.indexOf(stop.record) : outboxRecords.length;
    // A record counts as sent only when every one of its events was: a record is retried whole.
    const sent = pending.filter((entry) => outboxRecords.indexOf(entry.record) < firstFailed);
    try {
      // Events inside a completed record live and go with it (the sweeper); only outbox items are marked.
      await marker.mark(sent.map((entry) => entry.record).filter(isOutboxInsert));
    } catch (error) {
      // Sent but not marked: report them so a retry sends and marks them again.
      if (sent.length > 0) {
        stop = { record: sent[0].record, reason: `marking dispatched items failed: ${(error as Error).message}` };
        firstFailed = 0;
      }
    }
    const published = (firstFailed === 0 ? [] : sent).map((entry) => entry.message.eventId);
    if (published.length > 0)
      logger.info('outbox dispatched', {
        destination: publisher.destination,
        published: published.length,
        event_ids: published,
      });
    if (!stop) return { batchItemFailures: [] };
    const unsent = outboxRecords.slice(firstFailed);
    logger.error('outbox dispatch stopped', {
      destination: publisher.destination,
      reason: stop.reason,
      event_id: stop.eventId,
      sequence_number: stop.record.dynamodb?.SequenceNumber,
      reported: unsent.length,
    });
    return { batchItemFailures: unsent.map((record) => ({ itemIdentifier: sequenceNumberOf(record) })) };
  };
}

function sequenceNumberOf(record: DynamoDBRecord): string {
  const sequenceNumber = record.dynamodb?.SequenceNumber;
  // Without it the failure cannot be pinned to a record: failing the whole batch is the safe answer.
  if (!sequenceNumber)
    throw new RequestInvalidError('outboxDispatcher: a stream record has no dynamodb.SequenceNumber');
  return sequenceNumber;
}

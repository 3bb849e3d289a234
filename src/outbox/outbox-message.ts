import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import { RequestInvalidError } from '../core/index.js';
import { PARTITION_KEY, RecordAttribute, RecordPrefix, RecordStatus } from '../journal/index.js';

/** Name of the String message attribute carrying the event id on every SQS message the dispatcher sends. */
export const OUTBOX_EVENT_ID_ATTRIBUTE = 'eventId';

/**
 * An outbox event as the dispatcher delivers it: the SQS message body, or the EventBridge
 * `detail`. `eventId` is stable across retries of the operation that published it, so
 * consumers deduplicate on it.
 */
export interface OutboxMessage {
  readonly eventId: string;
  readonly type: string;
  readonly detail: unknown;
  /** ISO 8601 time of the publishing attempt. */
  readonly occurredAt: string;
}

type StreamImage = NonNullable<NonNullable<DynamoDBRecord['dynamodb']>['NewImage']>;

/** True for the stream record of a newly written `outbox#` item; updates and removals are not events. */
export function isOutboxInsert(record: DynamoDBRecord): boolean {
  const pk = record.dynamodb?.NewImage?.[PARTITION_KEY]?.S;
  return record.eventName === 'INSERT' && typeof pk === 'string' && pk.startsWith(RecordPrefix.outbox);
}

/**
 * The message of an outbox item's stream record, its `detail` parsed back from the JSON
 * string the journal stored.
 *
 * @throws RequestInvalidError when the item lacks an event id or type, or its detail is not JSON
 */
export function outboxMessageOf(record: DynamoDBRecord): OutboxMessage {
  const item = unmarshall(record.dynamodb!.NewImage as StreamImage as never) as Record<string, unknown>;
  const { eventId, type, detail, occurredAt } = item;
  if (typeof eventId !== 'string' || eventId.length === 0 || typeof type !== 'string' || type.length === 0) {
    throw new RequestInvalidError(`Outbox item ${String(item[PARTITION_KEY])} has no eventId or type`);
  }
  let parsedDetail: unknown = detail;
  if (typeof detail === 'string') {
    try {
      parsedDetail = JSON.parse(detail);
    } catch (error) {
      throw new RequestInvalidError(`Outbox event ${eventId} has a detail that is not JSON`, { cause: error });
    }
  }
  return { eventId, type, detail: parsedDetail ?? null, occurredAt: typeof occurredAt === 'string' ? occurredAt : '' };
}

/**
 * True for the stream record of a record completed by a multi-Region journal with outbox
 * events inside it (`outboxEvents`). Only the completion writes that attribute, and nothing
 * writes a completed record again but a reservation replacing it whole, so each such record
 * image is one completion.
 */
export function isCompletionWithEvents(record: DynamoDBRecord): boolean {
  const image = record.dynamodb?.NewImage;
  return (
    (record.eventName === 'INSERT' || record.eventName === 'MODIFY') &&
    image?.[RecordAttribute.status]?.S === RecordStatus.completed &&
    typeof image?.[RecordAttribute.outboxEvents]?.S === 'string'
  );
}

/**
 * The messages of the outbox events a completed record carries, in publishing order, shaped
 * as outbox items' messages are (same ids, same fields).
 *
 * @throws RequestInvalidError when the events are not a JSON array of events with an id and a type
 */
export function completionMessagesOf(record: DynamoDBRecord): OutboxMessage[] {
  const image = record.dynamodb!.NewImage!;
  const pk = image[PARTITION_KEY]?.S ?? '?';
  let events: unknown;
  try {
    events = JSON.parse(image[RecordAttribute.outboxEvents]!.S!);
  } catch (error) {
    throw new RequestInvalidError(`Record ${pk} has outbox events that are not JSON`, { cause: error });
  }
  if (!Array.isArray(events)) throw new RequestInvalidError(`Record ${pk} has outbox events that are not a list`);
  return events.map((event: Record<string, unknown> | null) => {
    const { eventId, type, detail, occurredAt } = event ?? {};
    if (typeof eventId !== 'string' || eventId.length === 0 || typeof type !== 'string' || type.length === 0) {
      throw new RequestInvalidError(`Record ${pk} has an outbox event without eventId or type`);
    }
    return { eventId, type, detail: detail ?? null, occurredAt: typeof occurredAt === 'string' ? occurredAt : '' };
  });
}

/** Serialized size of a message, for batch limits. */
export function messageBytes(message: OutboxMessage): number {
  return Buffer.byteLength(JSON.stringify(message));
}

import { fromMessageAttribute, idempotencyOf, sqsConsumer } from '../../index.js';
import type { AnyJournal, ExampleGuardOptions } from '../wiring.js';
import { orderConfirmedDetail, parseOutboxMessage } from '../order-event.js';
import { ExampleTableKey, ORDER_EVENTS_CONSUMER, PaymentsEventType } from '../service-config.js';
import { OUTBOX_EVENT_ID_ATTRIBUTE } from '../../outbox/index.js';

/** What the order-events consumer needs. */
export interface OrderEventsConsumerDependencies {
  readonly journal: AnyJournal;
  readonly stockTable: string;
  /** @default 'order-events' */
  readonly consumer?: string;
  /**
   * Extra guard options (lease, telemetry sinks, clock), for local runs and tests.
   * @default none
   */
  readonly guardOptions?: ExampleGuardOptions;
}

/**
 * Reserves stock once per `order.confirmed` event: each item's conditional decrement of
 * `available` commits in the same transaction as the inbox record, so a duplicate delivery
 * finds the record and changes nothing. Messages are identified by the outbox's `eventId`
 * attribute, not the SQS message id: a dispatch retried after a stream failure sends the
 * same event under a new message id. Other event types are acknowledged untouched.
 *
 * @example
 * const handler = createOrderEventsConsumer({ journal, stockTable: 'stock' });
 */
export function createOrderEventsConsumer(deps: OrderEventsConsumerDependencies) {
  return sqsConsumer(
    async function reserveStock(record, context) {
      const message = parseOutboxMessage(record.body);
      if (message.type !== PaymentsEventType.orderConfirmed) return;
      const order = orderConfirmedDetail(message.detail);
      const guard = idempotencyOf(context);
      for (const item of order.items) {
        guard.stage({
          Update: {
            TableName: deps.stockTable,
            Key: { [ExampleTableKey.stock]: item.sku },
            UpdateExpression: 'SET available = available - :quantity',
            ConditionExpression: 'available >= :quantity',
            ExpressionAttributeValues: { ':quantity': item.quantity },
          },
        });
      }
    },
    {
      journal: deps.journal,
      consumer: deps.consumer ?? ORDER_EVENTS_CONSUMER,
      messageId: fromMessageAttribute(OUTBOX_EVENT_ID_ATTRIBUTE),
      ...deps.guardOptions,
    },
  );
}

import type { OrderItem } from './payment-request.js';
import { type OutboxMessage } from '../outbox/index.js';

/** The detail of an `order.confirmed` event. */
export interface OrderConfirmedDetail {
  readonly paymentId: string;
  readonly orderId?: string;
  readonly items: readonly OrderItem[];
}

/**
 * Parses a queue message body written by the outbox dispatcher.
 *
 * @throws Error when the body is not such a message (the record then fails and, after the
 *   queue's receive limit, lands in the DLQ for a person to look at)
 */
export function parseOutboxMessage(body: string): OutboxMessage {
  const message = JSON.parse(body) as Partial<OutboxMessage> | null;
  if (!message || typeof message.eventId !== 'string' || typeof message.type !== 'string') {
    throw new Error('Not an outbox message: eventId and type are required');
  }
  return message as OutboxMessage;
}

/** The items of an `order.confirmed` detail, validated. */
export function orderConfirmedDetail(detail: unknown): OrderConfirmedDetail {
  const value = (detail ?? {}) as Partial<OrderConfirmedDetail>;
  const items = Array.isArray(value.items) ? value.items : [];
  for (const item of items) {
    if (typeof item?.sku !== 'string' || !Number.isSafeInteger(item.quantity) || item.quantity <= 0) {
      throw new Error('order.confirmed items must be { sku, quantity > 0 }');
    }
  }
  if (typeof value.paymentId !== 'string') throw new Error('order.confirmed needs a paymentId');
  return { paymentId: value.paymentId, orderId: value.orderId, items };
}

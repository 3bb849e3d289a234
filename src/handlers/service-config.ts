/**
 * Names shared by the example payments service's handlers and its CDK stack: environment
 * variables, guarded operations and the queue consumer.
 *
 * Pure constants only, so `lib/` can import them and the deployed wiring cannot drift from
 * what the handlers read.
 */

/** Environment variables the example handlers read. */
export const HandlerEnv = {
  /** Journal table name. */
  journalTable: 'IDEMKIT_TABLE_NAME',
  /** Payments table name. */
  paymentsTable: 'PAYMENTS_TABLE_NAME',
  /** Stock table name. */
  stockTable: 'STOCK_TABLE_NAME',
  /** Consumer name of a queue consumer (its inbox scope and `Consumer` metric dimension). */
  consumer: 'IDEMKIT_CONSUMER',
  /** URL of the queue the outbox dispatcher sends to. */
  outboxQueueUrl: 'OUTBOX_QUEUE_URL',
  /** Name of the event bus the outbox dispatcher puts events on. */
  outboxEventBus: 'OUTBOX_EVENT_BUS_NAME',
} as const;

/** Guarded HTTP operations (the `Operation` metric dimension). */
export const PaymentsOperation = {
  createPayment: 'POST /payments',
  createRefund: 'POST /payments/{id}/refunds',
} as const;

/** Consumer name of the order-events queue consumer. */
export const ORDER_EVENTS_CONSUMER = 'order-events';

/** `POWERTOOLS_SERVICE_NAME` of the example service. */
export const PAYMENTS_SERVICE_NAME = 'payments';

/** Event types the example service publishes through its outbox. */
export const PaymentsEventType = {
  orderConfirmed: 'order.confirmed',
  paymentRefunded: 'payment.refunded',
} as const;

/** Partition keys of the example tables (the journal's is `PARTITION_KEY` in the runtime schema). */
export const ExampleTableKey = {
  payments: 'paymentId',
  stock: 'sku',
} as const;

/**
 * Names shared by the example payments service's handlers and its CDK stack (`lib/example/`):
 * environment variables, guarded operations and the queue consumer.
 *
 * Pure constants only, so the example stack can import them and its wiring cannot drift from
 * what the handlers read. The toolkit's own variables (journal table, consumer, outbox
 * destination) are `IdemkitEnvironment`, which the constructs set and the runtime reads.
 */

/** Environment variables of the example's own tables. */
export const HandlerEnv = {
  /** Payments table name. */
  paymentsTable: 'PAYMENTS_TABLE_NAME',
  /** Stock table name. */
  stockTable: 'STOCK_TABLE_NAME',
  /** The durable fulfilment function the front door starts (a qualified ARN: version or alias). */
  fulfilmentFunction: 'FULFILMENT_FUNCTION_NAME',
  /** Payment totals (the read model projected from the payments table's stream) table name. */
  paymentTotalsTable: 'PAYMENT_TOTALS_TABLE_NAME',
} as const;

/** Guarded HTTP operations (the `Operation` metric dimension). */
export const PaymentsOperation = {
  createPayment: 'POST /payments',
  createRefund: 'POST /payments/{id}/refunds',
  startFulfilment: 'POST /fulfilments',
} as const;

/** Consumer name of the order-events queue consumer. */
export const ORDER_EVENTS_CONSUMER = 'order-events';

/** Consumer name of the payments table's stream consumer that projects payment totals. */
export const PAYMENTS_READ_MODEL_CONSUMER = 'payments-read-model';

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
  paymentTotals: 'totalId',
} as const;

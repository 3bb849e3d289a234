import { dynamodbStreamConsumer, idempotencyOf } from '../../index.js';
import type { AnyJournal, ExampleGuardOptions } from '../wiring.js';
import { ExampleTableKey, PAYMENTS_READ_MODEL_CONSUMER } from '../service-config.js';

/** What the payments read model consumer needs. */
export interface PaymentsReadModelDependencies {
  readonly journal: AnyJournal;
  /** The read model: one item per tenant, currency and day. */
  readonly paymentTotalsTable: string;
  /** @default 'payments-read-model' */
  readonly consumer?: string;
  /**
   * Extra guard options (lease, telemetry sinks, clock), for local runs and tests.
   * @default none
   */
  readonly guardOptions?: ExampleGuardOptions;
}

/** The fields of a stored payment the projection reads. */
interface StoredPayment {
  readonly paymentId: string;
  readonly tenantId?: string;
  readonly amount: number;
  readonly currency: string;
  readonly createdAt: string;
}

/**
 * Projects every new payment into the payment totals (count and amount per tenant, currency
 * and day) exactly once: the `ADD` is staged, so it commits in the same transaction as the
 * inbox record of the change, and a redelivered batch finds the record and adds nothing.
 * Only inserts count; changes to a payment (refunds) leave the totals as they are.
 *
 * @example
 * const handler = createPaymentsReadModel({ journal, paymentTotalsTable: 'payment-totals' });
 */
export function createPaymentsReadModel(deps: PaymentsReadModelDependencies) {
  return dynamodbStreamConsumer<StoredPayment>(
    async function projectPayment(record, context) {
      if (record.eventName !== 'INSERT' || !record.newImage) return;
      const payment = record.newImage;
      const day = payment.createdAt.slice(0, 10);
      idempotencyOf(context).stage({
        Update: {
          TableName: deps.paymentTotalsTable,
          Key: { [ExampleTableKey.paymentTotals]: `${payment.tenantId ?? '-'}#${payment.currency}#${day}` },
          UpdateExpression: 'ADD paymentCount :one, capturedAmount :amount',
          ExpressionAttributeValues: { ':one': 1, ':amount': payment.amount },
        },
      });
    },
    { journal: deps.journal, consumer: deps.consumer ?? PAYMENTS_READ_MODEL_CONSUMER, ...deps.guardOptions },
  );
}

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
  readonly status: string;
  readonly createdAt: string;
}

/** The status `POST /payments` stores a charged payment with; other items of the table (transfers) are not counted. */
const CAPTURED = 'CAPTURED';

/**
 * Projects every new captured payment into the payment totals (count and amount per tenant, currency
 * and day) exactly once: the `ADD` is staged, so it commits in the same transaction as the
 * inbox record of the change, and a redelivered batch finds the record and adds nothing.
 * Only inserts of captured payments count; changes to a payment (refunds) and other items
 * leave the totals as they are.
 *
 * @example
 * const handler = createPaymentsReadModel({ journal, paymentTotalsTable: 'payment-totals' });
 */
export function createPaymentsReadModel(deps: PaymentsReadModelDependencies) {
  return dynamodbStreamConsumer<StoredPayment>(
    async function projectPayment(record, context) {
      const payment = record.newImage;
      if (record.eventName !== 'INSERT' || payment?.status !== CAPTURED) return;
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

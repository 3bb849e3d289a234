import { idempotencyOf, type IdempotencyScope } from '../../index.js';
import { callerTenant, json, jsonBody, problem } from '../http-responses.js';
import { guardedRoute, type GuardedRouteDependencies } from './guarded-route.js';
import { createFakePaymentRail, type PaymentRail } from '../payment-rail.js';
import { parsePaymentRequest, type PaymentRequest } from '../payment-request.js';
import { PaymentsEventType, PaymentsOperation } from '../service-config.js';

/** What `POST /payments` needs. */
export type CreatePaymentDependencies = GuardedRouteDependencies;

/**
 * `POST /payments`: charges once per idempotency key, then stores the payment and publishes
 * `order.confirmed` in the same transaction that completes the key. Answers 201 with `Location`.
 *
 * @example
 * const handler = createPaymentHandler({ journal: new MemoryJournal(), paymentsTable: 'payments' });
 */
export function createPaymentHandler(deps: CreatePaymentDependencies) {
  const rail = deps.rail ?? createFakePaymentRail();
  const clock = deps.clock ?? Date.now;
  return guardedRoute(deps, PaymentsOperation.createPayment).handler(async function createPayment(event, context) {
    const parsed = parsePaymentRequest(jsonBody(event));
    if (!parsed.ok) return problem(400, 'invalid-payment', parsed.error);
    const request = parsed.value;
    const guard = idempotencyOf(context);
    const chargeId = await chargeOnce(guard, rail, request);
    const paymentId = `pay_${guard.deriveKey('payment')}`;
    const payment = {
      paymentId,
      tenantId: callerTenant(event),
      amount: request.amount,
      currency: request.currency,
      ...(request.orderId ? { orderId: request.orderId } : {}),
      items: request.items,
      chargeId,
      status: 'CAPTURED',
      createdAt: new Date(clock()).toISOString(),
    };
    guard.stage({
      Put: { TableName: deps.paymentsTable, Item: payment, ConditionExpression: 'attribute_not_exists(paymentId)' },
    });
    guard.publish({
      type: PaymentsEventType.orderConfirmed,
      detail: {
        paymentId,
        orderId: request.orderId,
        amount: request.amount,
        currency: request.currency,
        items: request.items,
      },
    });
    return json(201, payment, { location: `/payments/${paymentId}` });
  });
}

/** Charges at most once: evidence from an earlier attempt wins over a new call. */
async function chargeOnce(guard: IdempotencyScope, rail: PaymentRail, request: PaymentRequest): Promise<string> {
  const recorded = guard.evidence.chargeId;
  if (typeof recorded === 'string') return recorded;
  await guard.beginEffect('charge');
  const { chargeId } = await rail.charge({
    amount: request.amount,
    currency: request.currency,
    idempotencyKey: guard.deriveKey('charge'),
  });
  await guard.recordEvidence({ chargeId });
  return chargeId;
}

import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { idempotencyOf, type IdempotencyScope } from '../../index.js';
import { json, problem } from '../http-responses.js';
import { guardedRoute, type GuardedRouteDependencies } from './guarded-route.js';
import { createFakePaymentRail, type PaymentRail } from '../payment-rail.js';
import { parsePaymentRequest, type PaymentRequest } from '../payment-request.js';
import { routeRequestOf, type RouteRequest } from '../route-request.js';
import { PaymentsEventType, PaymentsOperation } from '../service-config.js';

/** What `POST /payments` needs. */
export type CreatePaymentDependencies = GuardedRouteDependencies;

/** `POST /payments` inside its guard, whichever door runs it. */
export type CreatePayment = (
  request: RouteRequest,
  guard: IdempotencyScope,
) => Promise<APIGatewayProxyStructuredResultV2>;

/**
 * `POST /payments` as a Middy handler: charges once per idempotency key, then stores the payment
 * and publishes `order.confirmed` in the same transaction that completes the key. Answers 201
 * with `Location`.
 *
 * @example
 * const handler = createPaymentHandler({ journal: new MemoryJournal(), paymentsTable: 'payments' });
 */
export function createPaymentHandler(deps: CreatePaymentDependencies) {
  const createPayment = paymentCreator(deps);
  return guardedRoute(deps, PaymentsOperation.createPayment).handler(async function createPaymentRoute(event, context) {
    return createPayment(routeRequestOf(event), idempotencyOf(context));
  });
}

/**
 * The body of `POST /payments`, for any door that guards it (the Middy handler above, the
 * Lambdalith's Express route).
 *
 * @example
 * const createPayment = paymentCreator({ journal, paymentsTable: 'payments' });
 * const answer = await createPayment({ tenant: '-', body: { amount: 5, currency: 'EUR' } }, idempotencyOf(req));
 */
export function paymentCreator(deps: Omit<CreatePaymentDependencies, 'journal' | 'guardOptions'>): CreatePayment {
  const rail = deps.rail ?? createFakePaymentRail();
  const clock = deps.clock ?? Date.now;
  return async function createPayment(request, guard) {
    const parsed = parsePaymentRequest(request.body);
    if (!parsed.ok) return problem(400, 'invalid-payment', parsed.error);
    const order = parsed.value;
    const chargeId = await chargeOnce(guard, rail, order);
    const paymentId = `pay_${guard.deriveKey('payment')}`;
    const payment = {
      paymentId,
      tenantId: request.tenant,
      amount: order.amount,
      currency: order.currency,
      ...(order.orderId ? { orderId: order.orderId } : {}),
      items: order.items,
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
        orderId: order.orderId,
        amount: order.amount,
        currency: order.currency,
        items: order.items,
      },
    });
    return json(201, payment, { location: `/payments/${paymentId}` });
  };
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

import { GetCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { idempotencyOf, type IdempotencyScope } from '../../index.js';
import { json, problem } from '../http-responses.js';
import { guardedRoute, type GuardedRouteDependencies } from './guarded-route.js';
import { createFakePaymentRail, type PaymentRail } from '../payment-rail.js';
import { parseRefundRequest } from '../payment-request.js';
import { routeRequestOf, type RouteRequest } from '../route-request.js';
import { PaymentsEventType, PaymentsOperation } from '../service-config.js';

/** What `POST /payments/{id}/refunds` needs. */
export interface CreateRefundDependencies extends GuardedRouteDependencies {
  readonly docClient: DynamoDBDocumentClient;
}

/** `POST /payments/{id}/refunds` inside its guard, whichever door runs it. */
export type CreateRefund = (
  request: RouteRequest,
  guard: IdempotencyScope,
) => Promise<APIGatewayProxyStructuredResultV2>;

/**
 * `POST /payments/{id}/refunds` as a Middy handler: refunds a payment at most once, ever. The
 * idempotency key makes one request safe to retry; `holdUnique('refund', paymentId)` keeps a
 * second request with another key (or the same key after it expired) from refunding again —
 * refused with 409 before it reaches the rail, since the claim is taken before the effect, not at
 * the commit.
 *
 * @example
 * const handler = createRefundHandler({ journal, docClient, paymentsTable: 'payments' });
 */
export function createRefundHandler(deps: CreateRefundDependencies) {
  const createRefund = refundCreator(deps);
  return guardedRoute(deps, PaymentsOperation.createRefund).handler(async function createRefundRoute(event, context) {
    return createRefund(routeRequestOf(event), idempotencyOf(context));
  });
}

/**
 * The body of `POST /payments/{id}/refunds`, for any door that guards it (the Middy handler
 * above, the Lambdalith's Express route).
 *
 * @example
 * const createRefund = refundCreator({ docClient, paymentsTable: 'payments' });
 * const answer = await createRefund({ tenant: '-', paymentId: 'pay_1', body: undefined }, idempotencyOf(req));
 */
export function refundCreator(deps: Omit<CreateRefundDependencies, 'journal' | 'guardOptions'>): CreateRefund {
  const rail = deps.rail ?? createFakePaymentRail();
  const clock = deps.clock ?? Date.now;
  return async function createRefund(request, guard) {
    const paymentId = request.paymentId;
    if (!paymentId) return problem(400, 'invalid-payment-id', 'The path needs a payment id');
    const parsed = parseRefundRequest(request.body);
    if (!parsed.ok) return problem(400, 'invalid-refund', parsed.error);
    const out = await deps.docClient.send(
      new GetCommand({ TableName: deps.paymentsTable, Key: { paymentId }, ConsistentRead: true }),
    );
    const payment = out.Item;
    if (!payment || payment.tenantId !== request.tenant)
      return problem(404, 'payment-not-found', `No payment ${paymentId}`);
    if (payment.refundId)
      return problem(409, 'already-refunded', `Payment ${paymentId} was refunded as ${payment.refundId}`);
    const amount = parsed.value.amount ?? (payment.amount as number);
    if (amount > (payment.amount as number))
      return problem(400, 'invalid-refund', 'A refund cannot exceed the payment');

    await guard.holdUnique('refund', paymentId);
    const refundId = await refundOnce(guard, rail, paymentId, payment.chargeId as string, amount);
    const refundedAt = new Date(clock()).toISOString();
    guard.stage({
      Update: {
        TableName: deps.paymentsTable,
        Key: { paymentId },
        UpdateExpression: 'SET refundId = :refundId, refundedAmount = :amount, refundedAt = :at, #status = :refunded',
        ConditionExpression: 'attribute_exists(paymentId) AND attribute_not_exists(refundId)',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: {
          ':refundId': refundId,
          ':amount': amount,
          ':at': refundedAt,
          ':refunded': 'REFUNDED',
        },
      },
    });
    const refund = { refundId, paymentId, amount, currency: payment.currency, reason: parsed.value.reason, refundedAt };
    guard.publish({ type: PaymentsEventType.paymentRefunded, detail: refund });
    return json(201, refund, { location: `/payments/${paymentId}/refunds/${refundId}` });
  };
}

/**
 * The rail key is the payment, not the request: should two requests with different keys ever
 * both reach the rail (the claim of one taken over after its lease ended), they still meet one
 * rail refund.
 */
async function refundOnce(
  guard: IdempotencyScope,
  rail: PaymentRail,
  paymentId: string,
  chargeId: string,
  amount: number,
): Promise<string> {
  const recorded = guard.evidence.refundId;
  if (typeof recorded === 'string') return recorded;
  await guard.beginEffect('refund');
  const { refundId } = await rail.refund({ chargeId, amount, idempotencyKey: `refund:${paymentId}` });
  await guard.recordEvidence({ refundId });
  return refundId;
}

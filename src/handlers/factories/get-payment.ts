import { GetCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { json, problem } from '../http-responses.js';
import { routeRequestOf, type RouteRequest } from '../route-request.js';

/** What `GET /payments/{id}` needs. */
export interface GetPaymentDependencies {
  readonly docClient: DynamoDBDocumentClient;
  readonly paymentsTable: string;
}

/** `GET /payments/{id}`, whichever door runs it. */
export type GetPayment = (request: RouteRequest) => Promise<APIGatewayProxyStructuredResultV2>;

/**
 * `GET /payments/{id}` as a Lambda handler: a read, safe to retry by nature, so no guard.
 *
 * @example const handler = getPaymentHandler({ docClient, paymentsTable: 'payments' });
 */
export function getPaymentHandler(deps: GetPaymentDependencies) {
  const getPayment = paymentReader(deps);
  return async function getPaymentRoute(event: APIGatewayProxyEventV2): Promise<APIGatewayProxyStructuredResultV2> {
    return getPayment(routeRequestOf(event));
  };
}

/**
 * The body of `GET /payments/{id}`, for any door (the handler above, the Lambdalith's Express
 * route). Another tenant's payment answers 404, like a missing one.
 *
 * @example const answer = await paymentReader({ docClient, paymentsTable: 'payments' })({ tenant: '-', paymentId, body: undefined });
 */
export function paymentReader(deps: GetPaymentDependencies): GetPayment {
  return async function getPayment(request) {
    const paymentId = request.paymentId;
    if (!paymentId) return problem(400, 'invalid-payment-id', 'The path needs a payment id');
    const out = await deps.docClient.send(
      new GetCommand({ TableName: deps.paymentsTable, Key: { paymentId }, ConsistentRead: true }),
    );
    if (!out.Item || out.Item.tenantId !== request.tenant) {
      return problem(404, 'payment-not-found', `No payment ${paymentId}`);
    }
    return json(200, out.Item);
  };
}

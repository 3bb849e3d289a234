import { GetCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { callerTenant, json, problem } from '../http-responses.js';

/** What `GET /payments/{id}` needs. */
export interface GetPaymentDependencies {
  readonly docClient: DynamoDBDocumentClient;
  readonly paymentsTable: string;
}

/**
 * `GET /payments/{id}`: a read, safe to retry by nature, so no guard. Another tenant's
 * payment answers 404, like a missing one.
 *
 * @example const handler = getPaymentHandler({ docClient, paymentsTable: 'payments' });
 */
export function getPaymentHandler(deps: GetPaymentDependencies) {
  return async function getPayment(event: APIGatewayProxyEventV2): Promise<APIGatewayProxyStructuredResultV2> {
    const paymentId = event.pathParameters?.id;
    if (!paymentId) return problem(400, 'invalid-payment-id', 'The path needs a payment id');
    const out = await deps.docClient.send(
      new GetCommand({ TableName: deps.paymentsTable, Key: { paymentId }, ConsistentRead: true }),
    );
    if (!out.Item || out.Item.tenantId !== callerTenant(event)) {
      return problem(404, 'payment-not-found', `No payment ${paymentId}`);
    }
    return json(200, out.Item);
  };
}

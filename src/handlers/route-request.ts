import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { callerTenant, jsonBody } from './http-responses.js';

/**
 * What a payments route reads of a request, whichever door delivered it: a Middy handler reads it
 * from the API Gateway event, the Lambdalith from the Express request. Routes written against it
 * answer alike through both, which is what lets a key move between them.
 */
export interface RouteRequest {
  /** The caller's tenant (the JWT `sub`, or '-' without an authorizer): the same value the guard scopes the key by. */
  readonly tenant: string;
  /** The body parsed as JSON, or `undefined` when it is absent or not JSON. */
  readonly body: unknown;
  /** The `{id}` path parameter, on routes that have one. */
  readonly paymentId?: string;
}

/**
 * The route request an API Gateway HTTP API (v2) event carries.
 *
 * @example const request = routeRequestOf(event); // { tenant: 'user-7', body: { amount: 5 }, paymentId: 'pay_1' }
 */
export function routeRequestOf(event: APIGatewayProxyEventV2): RouteRequest {
  const paymentId = event.pathParameters?.id;
  return { tenant: callerTenant(event), body: jsonBody(event), ...(paymentId ? { paymentId } : {}) };
}

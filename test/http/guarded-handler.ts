import middy from '@middy/core';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { httpIdempotency, type HttpIdempotencyOptions } from '../../src/index.js';
import { lambdaContext } from '../support/lambda.js';
import { type Journal } from '../../src/entries/journal.js';

/** A payments-like handler that counts its executions and answers 201 with a Location. */
export function countingHandler() {
  const calls: APIGatewayProxyEventV2[] = [];
  const handler = async (event: APIGatewayProxyEventV2) => {
    calls.push(event);
    const id = `pay_${calls.length}`;
    return {
      statusCode: 201,
      headers: { 'content-type': 'application/json', location: `/payments/${id}`, 'set-cookie': 'a=b', 'x-other': '1' },
      body: JSON.stringify({ id }),
    };
  };
  return { calls, handler };
}

/** Wraps a handler with the middleware, as one Lambda container would. */
export function guard<T>(
  handler: (event: APIGatewayProxyEventV2) => Promise<T>,
  journal: Journal,
  options: Partial<HttpIdempotencyOptions> = {},
) {
  const wrapped = middy(handler).use(httpIdempotency({ journal, ...options }));
  return (event: APIGatewayProxyEventV2, remainingTimeMs?: number) =>
    wrapped(event, lambdaContext(remainingTimeMs)) as Promise<any>;
}

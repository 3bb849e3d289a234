import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { randomUUID } from 'node:crypto';

/** An HTTP request as the local runner received it. */
export interface LocalHttpRequest {
  readonly method: string;
  /** Path without the query string, e.g. `/payments/pay_1/refunds`. */
  readonly path: string;
  readonly rawQueryString?: string;
  /** Header names in any case; they are lowercased like API Gateway does. */
  readonly headers?: Record<string, string | undefined>;
  readonly body?: string;
  /** The matched route, e.g. `POST /payments/{id}/refunds`. */
  readonly routeKey: string;
  readonly pathParameters?: Record<string, string>;
}

/**
 * Builds the API Gateway HTTP API (payload 2.0) event that API Gateway would send for a
 * request: lowercased headers, `rawPath`, `routeKey`, `pathParameters`, the query string
 * parsed into `queryStringParameters` (repeated names joined with commas), and a text body.
 * No authorizer: every caller is the anonymous tenant, as with the example stack without JWT.
 */
export function toApiGatewayV2Event(request: LocalHttpRequest): APIGatewayProxyEventV2 {
  const headers = Object.fromEntries(
    Object.entries(request.headers ?? {})
      .filter((entry): entry is [string, string] => typeof entry[1] === 'string')
      .map(([name, value]) => [name.toLowerCase(), value]),
  );
  const query = new URLSearchParams(request.rawQueryString ?? '');
  const queryStringParameters: Record<string, string> = {};
  for (const [name, value] of query)
    queryStringParameters[name] = name in queryStringParameters ? `${queryStringParameters[name]},${value}` : value;
  const now = new Date();
  return {
    version: '2.0',
    routeKey: request.routeKey,
    rawPath: request.path,
    rawQueryString: request.rawQueryString ?? '',
    headers,
    ...(query.size > 0 ? { queryStringParameters } : {}),
    ...(request.pathParameters ? { pathParameters: request.pathParameters } : {}),
    requestContext: {
      accountId: '000000000000',
      apiId: 'local',
      domainName: headers.host ?? '127.0.0.1',
      domainPrefix: 'local',
      http: {
        method: request.method,
        path: request.path,
        protocol: 'HTTP/1.1',
        sourceIp: '127.0.0.1',
        userAgent: headers['user-agent'] ?? '',
      },
      requestId: randomUUID(),
      routeKey: request.routeKey,
      stage: '$default',
      time: now.toUTCString(),
      timeEpoch: now.getTime(),
    },
    body: request.body,
    isBase64Encoded: false,
  };
}

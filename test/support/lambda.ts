import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';

/** A Lambda context with a fixed remaining time. */
export function lambdaContext(remainingTimeMs = 10_000): Context {
  return {
    awsRequestId: `req-${Math.random().toString(36).slice(2)}`,
    getRemainingTimeInMillis: () => remainingTimeMs,
    functionName: 'test',
    functionVersion: '$LATEST',
    invokedFunctionArn: 'arn:aws:lambda:us-east-1:123456789012:function:test',
    memoryLimitInMB: '128',
    logGroupName: '/aws/lambda/test',
    logStreamName: 'stream',
    callbackWaitsForEmptyEventLoop: false,
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  } as Context;
}

/** An HTTP API (v2) event. */
export function httpEvent(options: {
  method?: string;
  path?: string;
  routeKey?: string;
  key?: string;
  body?: unknown;
  rawBody?: string;
  headers?: Record<string, string>;
  sub?: string;
  isBase64Encoded?: boolean;
}): APIGatewayProxyEventV2 {
  const method = options.method ?? 'POST';
  const path = options.path ?? '/payments';
  const headers: Record<string, string> = { 'content-type': 'application/json', ...(options.headers ?? {}) };
  if (options.key !== undefined) headers['idempotency-key'] = options.key;
  const event = {
    version: '2.0',
    routeKey: options.routeKey ?? `${method} ${path}`,
    rawPath: path,
    rawQueryString: '',
    headers,
    requestContext: {
      accountId: '123456789012',
      apiId: 'api',
      domainName: 'example.com',
      domainPrefix: 'example',
      http: { method, path, protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: 'test' },
      requestId: 'id',
      routeKey: options.routeKey ?? `${method} ${path}`,
      stage: '$default',
      time: '30/Nov/2026:10:00:00 +0000',
      timeEpoch: 0,
      ...(options.sub ? { authorizer: { jwt: { claims: { sub: options.sub }, scopes: [] } } } : {}),
    },
    body: options.rawBody ?? (options.body === undefined ? undefined : JSON.stringify(options.body)),
    isBase64Encoded: options.isBase64Encoded ?? false,
  };
  return event as unknown as APIGatewayProxyEventV2;
}

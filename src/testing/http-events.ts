import type { ALBEvent, APIGatewayProxyEvent, APIGatewayProxyEventV2 } from 'aws-lambda';
import { randomUUID } from 'node:crypto';

/** One HTTP request, whichever front door delivers it. */
export interface HttpRequestOptions {
  /**
   * HTTP method.
   * @default 'POST'
   */
  readonly method?: string;
  /**
   * Concrete path, without the query string.
   * @default '/'
   */
  readonly path?: string;
  /**
   * The route template API Gateway matched (`/payments/{id}`): the default `operation` is
   * `${method} ${route}`, and the event's `pathParameters` are what the template names (`{id}` one
   * segment, `{proxy+}` the rest of the path), as API Gateway fills them. Function URLs and ALBs have
   * no routes and ignore it.
   * @default - the path
   */
  readonly route?: string;
  /**
   * Sent as the `Idempotency-Key` header.
   * @default - no key header
   */
  readonly idempotencyKey?: string;
  /**
   * Request body: a string is sent as it is, anything else as JSON (with `content-type: application/json`).
   * @default - no body
   */
  readonly body?: unknown;
  /**
   * More headers (names lowercased, as API Gateway v2 and Function URLs deliver them).
   * @default - none
   */
  readonly headers?: Record<string, string>;
  /**
   * Query string parameters.
   * @default - none
   */
  readonly query?: Record<string, string>;
  /**
   * The authenticated caller, where the front door's authorizer puts it (v2: JWT `sub`; v1:
   * `principalId`; Function URL: IAM `userArn`): the guard's default tenant. An ALB has no
   * authorizer.
   * @default - anonymous (tenant '-')
   */
  readonly principal?: string;
}

interface Normalised {
  readonly method: string;
  readonly path: string;
  readonly route: string;
  readonly headers: Record<string, string>;
  readonly body: string | undefined;
  readonly query: Record<string, string> | undefined;
  readonly rawQueryString: string;
  readonly pathParameters: Record<string, string> | undefined;
}

function normalise(options: HttpRequestOptions): Normalised {
  const method = (options.method ?? 'POST').toUpperCase();
  const path = options.path ?? '/';
  const json = options.body !== undefined && typeof options.body !== 'string';
  const headers: Record<string, string> = {
    ...(json ? { 'content-type': 'application/json' } : {}),
    ...(options.idempotencyKey === undefined ? {} : { 'idempotency-key': options.idempotencyKey }),
  };
  for (const [name, value] of Object.entries(options.headers ?? {})) headers[name.toLowerCase()] = value;
  return {
    method,
    path,
    route: options.route ?? path,
    headers,
    body: options.body === undefined ? undefined : json ? JSON.stringify(options.body) : (options.body as string),
    query: options.query && Object.keys(options.query).length > 0 ? { ...options.query } : undefined,
    rawQueryString: new URLSearchParams(options.query ?? {}).toString(),
    pathParameters: pathParametersOf(options.route ?? path, path),
  };
}

/**
 * The path parameters API Gateway fills from a route template: `{id}` takes one segment,
 * `{proxy+}` the rest of the path; none when the template has no parameter or does not match.
 */
function pathParametersOf(route: string, path: string): Record<string, string> | undefined {
  const templates = route.split('/');
  const segments = path.split('/');
  const parameters: Record<string, string> = {};
  for (const [i, template] of templates.entries()) {
    const greedy = /^\{(.+)\+\}$/.exec(template);
    if (greedy) {
      parameters[greedy[1]!] = segments.slice(i).join('/');
      return parameters;
    }
    const single = /^\{(.+)\}$/.exec(template);
    if (single && segments[i]) parameters[single[1]!] = segments[i]!;
    else if (template !== segments[i]) return undefined;
  }
  if (templates.length !== segments.length) return undefined;
  return Object.keys(parameters).length > 0 ? parameters : undefined;
}

const ACCOUNT_ID = '123456789012';

/**
 * An API Gateway HTTP API event (payload format 2.0), as the route `${method} ${route}` receives it.
 *
 * @example
 * const event = httpApiEvent({ method: 'POST', path: '/payments', idempotencyKey: 'k-1', body: { amount: 5 } });
 * const response = await handler(event, lambdaContext());
 */
export function httpApiEvent(options: HttpRequestOptions = {}): APIGatewayProxyEventV2 {
  const request = normalise(options);
  return v2Event(request, `${request.method} ${request.route}`, {
    ...(options.principal === undefined
      ? {}
      : { authorizer: { jwt: { claims: { sub: options.principal }, scopes: [] } } }),
  });
}

/**
 * A Lambda Function URL event: the HTTP API 2.0 shape with route `$default` (the operation is
 * then `${method} ${path}`) and, with `principal`, an IAM-authenticated caller.
 *
 * @example const event = functionUrlEvent({ path: '/orders', idempotencyKey: 'k-1', body: { sku: 'A' } });
 */
export function functionUrlEvent(options: HttpRequestOptions = {}): APIGatewayProxyEventV2 {
  const request = normalise(options);
  return v2Event(request, '$default', {
    domainName: 'abcdefghij.lambda-url.us-east-1.on.aws',
    ...(options.principal === undefined
      ? {}
      : { authorizer: { iam: { userArn: options.principal, accountId: ACCOUNT_ID, callerId: 'AIDACALLER' } } }),
  });
}

function v2Event(request: Normalised, routeKey: string, extra: Record<string, unknown>): APIGatewayProxyEventV2 {
  const now = new Date();
  return {
    version: '2.0',
    routeKey,
    rawPath: request.path,
    rawQueryString: request.rawQueryString,
    headers: request.headers,
    ...(request.query ? { queryStringParameters: request.query } : {}),
    ...(request.pathParameters ? { pathParameters: request.pathParameters } : {}),
    requestContext: {
      accountId: ACCOUNT_ID,
      apiId: 'test',
      domainName: 'test.execute-api.us-east-1.amazonaws.com',
      domainPrefix: 'test',
      http: {
        method: request.method,
        path: request.path,
        protocol: 'HTTP/1.1',
        sourceIp: '127.0.0.1',
        userAgent: 'test',
      },
      requestId: randomUUID(),
      routeKey,
      stage: '$default',
      time: now.toUTCString(),
      timeEpoch: now.getTime(),
      ...extra,
    },
    ...(request.body === undefined ? {} : { body: request.body }),
    isBase64Encoded: false,
  } as APIGatewayProxyEventV2;
}

/**
 * An API Gateway REST API event (payload format 1.0) for the resource `route`.
 *
 * @example const event = restApiEvent({ path: '/payments/p-1/refunds', route: '/payments/{id}/refunds', idempotencyKey: 'k' });
 */
export function restApiEvent(options: HttpRequestOptions = {}): APIGatewayProxyEvent {
  const request = normalise(options);
  const now = new Date();
  return {
    resource: request.route,
    path: request.path,
    httpMethod: request.method,
    headers: request.headers,
    multiValueHeaders: Object.fromEntries(Object.entries(request.headers).map(([name, value]) => [name, [value]])),
    queryStringParameters: request.query ?? null,
    multiValueQueryStringParameters: request.query
      ? Object.fromEntries(Object.entries(request.query).map(([name, value]) => [name, [value]]))
      : null,
    pathParameters: request.pathParameters ?? null,
    stageVariables: null,
    requestContext: {
      accountId: ACCOUNT_ID,
      apiId: 'test',
      authorizer: options.principal === undefined ? null : { principalId: options.principal },
      httpMethod: request.method,
      identity: { sourceIp: '127.0.0.1', userAgent: 'test' },
      path: `/prod${request.path}`,
      protocol: 'HTTP/1.1',
      requestId: randomUUID(),
      requestTimeEpoch: now.getTime(),
      resourceId: 'test',
      resourcePath: request.route,
      stage: 'prod',
    },
    body: request.body ?? null,
    isBase64Encoded: false,
  } as unknown as APIGatewayProxyEvent;
}

/**
 * An Application Load Balancer event (multi-value headers off), the operation `${method} ${path}`.
 *
 * @example const event = albEvent({ path: '/orders', idempotencyKey: 'k-1', body: 'sku=A' });
 */
export function albEvent(options: HttpRequestOptions = {}): ALBEvent {
  const request = normalise(options);
  return {
    requestContext: {
      elb: { targetGroupArn: `arn:aws:elasticloadbalancing:us-east-1:${ACCOUNT_ID}:targetgroup/test/0123456789abcdef` },
    },
    httpMethod: request.method,
    path: request.path,
    queryStringParameters: request.query ?? {},
    headers: request.headers,
    body: request.body ?? '',
    isBase64Encoded: false,
  };
}

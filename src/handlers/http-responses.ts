import type {
  APIGatewayProxyEventV2,
  APIGatewayProxyEventV2WithJWTAuthorizer,
  APIGatewayProxyStructuredResultV2,
} from 'aws-lambda';

/** Prefix of the example service's own problem `type` URIs. */
export const PAYMENTS_PROBLEM_PREFIX = 'urn:payments-example:problem:';

/** A JSON response. */
export function json(
  statusCode: number,
  body: unknown,
  headers: Record<string, string> = {},
): APIGatewayProxyStructuredResultV2 {
  return { statusCode, headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) };
}

/**
 * An RFC 9457 problem response.
 *
 * @example problem(404, 'payment-not-found', 'No payment pay_123')
 */
export function problem(statusCode: number, type: string, detail: string): APIGatewayProxyStructuredResultV2 {
  return {
    statusCode,
    headers: { 'content-type': 'application/problem+json' },
    body: JSON.stringify({
      type: `${PAYMENTS_PROBLEM_PREFIX}${type}`,
      title: type.replace(/-/g, ' '),
      status: statusCode,
      detail,
    }),
  };
}

/**
 * The caller's tenant: the JWT `sub` claim when an authorizer ran (a number as its decimal
 * string), '-' without one (every anonymous caller then shares one scope). Never read from a
 * client header.
 */
export function callerTenant(event: APIGatewayProxyEventV2): string {
  const claims = (event as Partial<APIGatewayProxyEventV2WithJWTAuthorizer>).requestContext?.authorizer?.jwt?.claims;
  const sub: unknown = claims?.sub;
  if (sub === undefined || sub === null) return '-';
  if (typeof sub === 'number' && Number.isFinite(sub)) return String(sub);
  // An empty or odd claim goes on as it is, so the guard refuses it rather than filing the caller as anonymous.
  return sub as string;
}

/** The request body parsed as JSON, or `undefined` when it is absent or not JSON. */
export function jsonBody(event: APIGatewayProxyEventV2): unknown {
  if (!event.body) return undefined;
  return jsonText(event.isBase64Encoded ? Buffer.from(event.body, 'base64').toString('utf8') : event.body);
}

/** `text` parsed as JSON, or `undefined` when it is empty or not JSON. */
export function jsonText(text: string): unknown {
  if (!text) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

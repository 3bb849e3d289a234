import { keyProblem, NO_TENANT, RequestInvalidError, scopePart } from '../core/index.js';

/**
 * Which API Gateway / ALB payload an event is. Function URLs use the v2 shape; an ALB target
 * group with multi-value headers on must answer with `multiValueHeaders`.
 */
export type EventFlavor = 'v1' | 'v2' | 'alb' | 'alb-multi-value';

/** The parts of an HTTP Lambda event the guard needs, whatever its flavor. */
export interface HttpRequestView {
  readonly flavor: EventFlavor;
  readonly method: string;
  readonly path: string;
  readonly route: string;
  readonly query: Record<string, unknown>;
  readonly headers: Record<string, string | undefined>;
  readonly multiValueHeaders?: Record<string, string[] | undefined>;
  /** A string as delivered, or a value already parsed by a body-parser middleware. */
  readonly body: unknown;
  readonly isBase64Encoded: boolean;
  readonly authorizer: Record<string, any> | undefined;
  readonly identity: Record<string, any> | undefined;
}

type AnyEvent = Record<string, any>;

/**
 * Reads an API Gateway REST (v1), HTTP API (v2), Function URL or ALB event.
 *
 * @throws RequestInvalidError for any other shape
 */
export function viewHttpEvent(event: unknown): HttpRequestView {
  if (!event || typeof event !== 'object') throw new RequestInvalidError('The event is not an HTTP event');
  const e = event as AnyEvent;
  const context = (e.requestContext ?? {}) as AnyEvent;
  if (e.version === '2.0' && typeof context.http?.method === 'string') {
    const method = String(context.http.method).toUpperCase();
    const path = String(e.rawPath ?? context.http.path ?? '/');
    const route = typeof e.routeKey === 'string' && e.routeKey !== '$default' ? e.routeKey : `${method} ${path}`;
    return {
      flavor: 'v2',
      method,
      path,
      route,
      query: e.queryStringParameters ?? {},
      headers: e.headers ?? {},
      body: e.body,
      isBase64Encoded: e.isBase64Encoded === true,
      authorizer: context.authorizer,
      identity: undefined,
    };
  }
  if (typeof e.httpMethod === 'string') {
    const flavor: EventFlavor = context.elb ? (e.multiValueHeaders ? 'alb-multi-value' : 'alb') : 'v1';
    const method = e.httpMethod.toUpperCase();
    const path = String(e.path ?? '/');
    return {
      flavor,
      method,
      path,
      route: `${method} ${flavor === 'v1' && typeof e.resource === 'string' ? e.resource : path}`,
      query: e.multiValueQueryStringParameters ?? e.queryStringParameters ?? {},
      headers: e.headers ?? {},
      multiValueHeaders: e.multiValueHeaders ?? undefined,
      body: e.body,
      isBase64Encoded: e.isBase64Encoded === true,
      authorizer: context.authorizer,
      identity: context.identity,
    };
  }
  throw new RequestInvalidError('Unsupported event shape: expected API Gateway REST, HTTP API, Function URL or ALB');
}

/**
 * The tenant from the authorizer, never from a client header: v2 JWT `claims.sub`; v2 Lambda
 * authorizer `lambda.tenantId ?? principalId`; IAM `userArn`; v1 `principalId ?? claims.sub`;
 * `'-'` when there is none. The first source present decides, read by {@link scopePart}.
 *
 * @throws RequestInvalidError when that source holds a value that cannot name a tenant
 */
export function defaultTenant(view: HttpRequestView): string {
  const a = view.authorizer ?? {};
  const sources: Array<[string, unknown]> =
    view.flavor === 'v2'
      ? [
          ['jwt.claims.sub', a.jwt?.claims?.sub],
          ['lambda.tenantId', a.lambda?.tenantId],
          ['lambda.principalId', a.lambda?.principalId],
          ['principalId', a.principalId],
          ['iam.userArn', a.iam?.userArn],
        ]
      : [
          ['principalId', a.principalId],
          ['claims.sub', a.claims?.sub],
          ['identity.userArn', view.identity?.userArn],
        ];
  for (const [name, value] of sources) {
    const tenant = scopePart(value, `the authorizer's ${name}`);
    if (tenant !== undefined) return tenant;
  }
  return NO_TENANT;
}

/** Result of reading the idempotency key from request headers. */
export type KeyReading =
  | { readonly kind: 'missing' }
  | { readonly kind: 'invalid'; readonly reason: string }
  | { readonly kind: 'present'; readonly key: string };

/**
 * Reads the key header case-insensitively, as a bare token or an RFC 8941 quoted string
 * (`"abc"` and `abc` are the same key), and validates it: 1–255 characters, each visible
 * ASCII (0x21–0x7E). A bare key is one token: a comma separates list members, and it is what
 * a gateway puts between two header lines it joins (HTTP API v2 does), so a bare value holding
 * one is two keys, never one. A quoted string may hold any visible character, a comma included.
 *
 * @example readKeyHeader({ 'idempotency-key': '"abc"' }, 'Idempotency-Key') // { kind: 'present', key: 'abc' }
 */
export function readKeyHeader(
  headers: Record<string, string | undefined> | null | undefined,
  headerName: string,
  multiValueHeaders?: Record<string, readonly string[] | undefined> | null,
): KeyReading {
  const wanted = headerName.toLowerCase();
  // REST and ALB events may carry the key under several spellings, in either map: every value counts.
  const values = new Set<unknown>();
  for (const [name, list] of Object.entries(multiValueHeaders ?? {})) {
    if (name.toLowerCase() === wanted && Array.isArray(list)) for (const value of list) values.add(value);
  }
  for (const [name, value] of Object.entries(headers ?? {})) {
    if (name.toLowerCase() === wanted && value !== undefined && value !== null) values.add(value);
  }
  if (values.size > 1) return { kind: 'invalid', reason: `More than one ${headerName} header` };
  const [raw] = values;
  if (raw === undefined || raw === null) return { kind: 'missing' };
  if (typeof raw !== 'string') return { kind: 'invalid', reason: `${headerName} must be a string` };
  const value = raw.replace(/^[ \t]+|[ \t]+$/g, '');
  if (value.length === 0) return { kind: 'invalid', reason: `${headerName} is empty` };
  if (!value.startsWith('"') && value.includes(','))
    return {
      kind: 'invalid',
      reason: `${headerName} holds more than one value (a comma separates them); quote a key that holds a comma`,
    };
  const key = value.startsWith('"') ? unquote(value) : value;
  if (key === undefined) return { kind: 'invalid', reason: `${headerName} is not a valid RFC 8941 string` };
  const problem = keyProblem(key);
  return problem ? { kind: 'invalid', reason: `${headerName} ${problem}` } : { kind: 'present', key };
}

/** Parses an RFC 8941 sf-string: `"` ... `"` with `\"` and `\\` escapes only. */
function unquote(value: string): string | undefined {
  let out = '';
  for (let i = 1; i < value.length; i++) {
    const char = value[i];
    if (char === '\\') {
      const next = value[++i];
      if (next !== '"' && next !== '\\') return undefined;
      out += next;
    } else if (char === '"') {
      return i === value.length - 1 ? out : undefined;
    } else {
      const code = char.charCodeAt(0);
      if (code < 0x20 || code > 0x7e) return undefined;
      out += char;
    }
  }
  return undefined;
}

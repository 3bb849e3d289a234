import { randomUUID } from 'node:crypto';
import { NO_TENANT } from '../core/index.js';
import { idempotencyOf, type IdempotencyScope, type LambdaContextLike } from '../engine/index.js';
import { defaultTenant, viewHttpEvent, type HttpRequestView } from './http-event.js';
import type { HttpGuardRequest } from './http-guard.js';
import { routeOperation } from './route-pattern.js';

/**
 * How a framework door (Hono, Express, Fastify) turns its request into the guard's: one request
 * the same whether the app runs in a server, in a container or in a Lambda behind an adapter,
 * with a context object of its own, so that many requests running at once in one process never
 * share a scope.
 */

/** The Lambda invocation behind a request, when the app runs in a Lambda behind an adapter. */
export interface LambdaInvocation {
  /** The API Gateway, Function URL or ALB event the adapter turned into the request. */
  readonly event?: unknown;
  /** The invocation's Lambda context. */
  readonly context?: unknown;
}

/** What a door reads of its framework's request. */
export interface DoorRequestParts<Source> {
  /** The framework's request (or context): the key `idempotencyOf` finds the scope by, and what option functions read. */
  readonly source: Source & object;
  readonly method: string;
  /** The matched route pattern (`/payments/:id/refunds`), when the framework knows it. */
  readonly routePattern?: string;
  /** The request target as received: the concrete path and the query string (`/payments/p_1?x=1`). */
  readonly url: string;
  readonly headers: Readonly<Record<string, string | readonly string[] | undefined>>;
  /**
   * The body's bytes (empty for none), or a value a body parser already made of them; read only
   * when the request is not read from a Lambda event (see {@link readsLambdaEvent}).
   */
  readonly body: () => unknown;
  /** The Lambda invocation behind the request, if any. */
  readonly invocation?: LambdaInvocation;
}

/** Each request's own context, by the framework's request object it belongs to. */
const contexts = new WeakMap<object, LambdaContextLike>();

/**
 * The guard's request for a framework request. Under a Lambda adapter that exposes the original
 * event, the event is read as `httpIdempotency` reads it (headers, concrete path, query, body, and
 * the authorizer's principal as the default tenant), so a key keeps its fingerprint when a route
 * moves between a Middy handler and a framework; the route pattern comes from the framework.
 * Elsewhere the request is read as an HTTP API (v2) event would carry it, and the tenant is `'-'`.
 *
 * @throws RequestInvalidError from `body()` (a body the door cannot read)
 */
export function doorRequest<Source>(parts: DoorRequestParts<Source>): HttpGuardRequest<Source> {
  const method = parts.method.toUpperCase();
  const view = eventView(parts.invocation?.event);
  const context = doorContext(parts.source, parts.invocation?.context);
  const route = routeOperation(method, parts.routePattern ?? pathOf(parts.url));
  if (view) {
    const { path, query, headers, multiValueHeaders, body, isBase64Encoded } = view;
    const defaultTenantOf = () => defaultTenant(view);
    return {
      method,
      route,
      path,
      query,
      headers,
      multiValueHeaders,
      body,
      isBase64Encoded,
      defaultTenant: defaultTenantOf,
      source: parts.source,
      context,
    };
  }
  return {
    method,
    route,
    path: pathOf(parts.url),
    query: queryOf(parts.url),
    headers: singleValued(parts.headers),
    get body() {
      return parts.body();
    },
    defaultTenant: () => NO_TENANT,
    source: parts.source,
    context,
  };
}

/**
 * The idempotency scope of the guarded request `source` belongs to (the framework's request or
 * context object a door was given).
 *
 * @throws IdempotencyError (`no-scope`) outside a guarded handler
 */
export function idempotencyOfRequest(source: object): IdempotencyScope {
  const context = contexts.get(source);
  return idempotencyOf(context ?? source);
}

/**
 * The request's own context: the Lambda context behind it when there is one (its remaining time,
 * request id and tenant), in an object of the request's own; else a request id of its own.
 */
function doorContext(source: object, lambdaContext: unknown): LambdaContextLike {
  const inherited = typeof lambdaContext === 'object' && lambdaContext !== null ? lambdaContext : null;
  const context: LambdaContextLike =
    inherited && typeof (inherited as LambdaContextLike).awsRequestId === 'string'
      ? Object.create(inherited)
      : Object.create(inherited, { awsRequestId: { value: randomUUID(), enumerable: true } });
  contexts.set(source, context);
  return context;
}

/** Whether {@link doorRequest} reads the request from the Lambda event behind it (and never asks for the body). */
export function readsLambdaEvent(invocation: LambdaInvocation | undefined): boolean {
  return eventView(invocation?.event) !== undefined;
}

function eventView(event: unknown): HttpRequestView | undefined {
  if (event === undefined || event === null) return undefined;
  try {
    return viewHttpEvent(event);
  } catch {
    // Not an HTTP event the guard knows: the framework's request is read instead.
    return undefined;
  }
}

function pathOf(url: string): string {
  const end = url.search(/[?#]/);
  return end === -1 ? url : url.slice(0, end);
}

/** The query as an HTTP API (v2) event carries it: each name once, repeated values joined by commas. */
function queryOf(url: string): Record<string, string> {
  const start = url.indexOf('?');
  if (start === -1) return {};
  const query: Record<string, string> = {};
  for (const [name, value] of new URLSearchParams(url.slice(start + 1).split('#')[0])) {
    query[name] = name in query ? `${query[name]},${value}` : value;
  }
  return query;
}

/** Headers as an HTTP API (v2) event carries them: lower-case names, repeated lines joined by commas. */
function singleValued(
  headers: Readonly<Record<string, string | readonly string[] | undefined>>,
): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    const lower = name.toLowerCase();
    const joined = typeof value === 'string' ? value : value.join(',');
    out[lower] = lower in out ? `${out[lower]},${joined}` : joined;
  }
  return out;
}

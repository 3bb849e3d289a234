import type { Context, MiddlewareHandler } from 'hono';
import { matchedRoutes, routePath } from 'hono/route';
import { readFunction } from '../core/index.js';
import type { IdempotencyScope } from '../engine/index.js';
import {
  doorRequest,
  HttpGuard,
  idempotencyOfRequest,
  readsLambdaEvent,
  resolveHttpGuardOptions,
  responseToSend,
  type DoorEnding,
  type HttpGuardOptions,
  type HttpResponse,
  type LambdaInvocation,
} from '../http/index.js';
import { captureResponse, headersOf } from './captured-body.js';

/** Options of the Hono door: the HTTP guard's, read from the Hono context. */
export interface HonoIdempotencyOptions extends HttpGuardOptions<Context> {
  /**
   * The Lambda invocation behind a request, when the app runs in a Lambda behind an adapter: its
   * event gives the authorizer's principal (the default tenant) and the request as
   * `httpIdempotency` reads it; its context the deadline and the request id.
   * @default `{ event: c.env.event, context: c.env.lambdaContext }` (`hono/aws-lambda`, `@hono/aws-lambda`)
   */
  readonly lambdaInvocation?: (c: Context) => LambdaInvocation | undefined;
}

const FACTORY = 'idempotency (idemkit/hono)';
/** Hono's method name of a route registered for every method (`app.use`, `app.all`). */
const ANY_METHOD = 'ALL';

/**
 * Hono middleware that makes a route safe to retry: one execution per idempotency key, the first
 * outcome replayed, key reuse with other parameters refused. The handler's response (`c.json`,
 * `c.body`, a stream that ends normally) is read whole and stored before it is answered. The
 * default operation is the method and the route pattern (`POST /payments/{id}/refunds` for
 * `app.post('/payments/:id/refunds', ...)`).
 *
 * @example
 * app.post('/payments', idempotency({ journal }), async (c) => {
 *   const scope = idempotencyOf(c);
 *   return c.json(await createPayment(await c.req.json(), scope.deriveKey('charge')), 201);
 * });
 */
export function idempotency(options: HonoIdempotencyOptions): MiddlewareHandler {
  const settings = resolveHttpGuardOptions(FACTORY, options, ['lambdaInvocation']);
  const invocationOf = readFunction(FACTORY, 'lambdaInvocation', options.lambdaInvocation, adapterInvocation);
  const guard = new HttpGuard(settings);

  return async function idempotencyMiddleware(c, next) {
    const invocation = invocationOf(c);
    // Hono keeps the bytes it read: the handler's own c.req.json() parses them again.
    const body = readsLambdaEvent(invocation) ? undefined : new Uint8Array(await c.req.arrayBuffer());
    const url = new URL(c.req.url);
    const request = doorRequest({
      source: c,
      method: c.req.method,
      routePattern: routePatternOf(c),
      url: `${url.pathname}${url.search}`,
      headers: headersOf(c.req.raw.headers),
      body: () => body,
      invocation,
    });
    let own: { response: Response; bytes: Buffer } | undefined;
    let streamError: unknown;
    const answer = await guard.handle(request, async (): Promise<DoorEnding> => {
      await next();
      if (c.error) return { kind: 'threw', error: c.error };
      try {
        const { captured, bytes } = await captureResponse(c.res);
        own = { response: c.res, bytes };
        return { kind: 'returned', response: captured };
      } catch (error) {
        streamError = error;
        return { kind: 'threw', error };
      }
    });
    if (streamError !== undefined) throw streamError;
    if (answer.kind === 'pass') return next();
    if (answer.kind === 'own') {
      // The handler's response was read to store it: it is answered again from its bytes.
      if (own) c.res = new Response(own.bytes.byteLength > 0 ? new Uint8Array(own.bytes) : null, own.response);
      return;
    }
    // Headers the handler set are not the answer's: the answer replaces its response whole.
    c.res = undefined;
    c.res = responseOf(answer.response);
  };
}

/**
 * The idempotency scope of the guarded request `c` belongs to, inside its handler.
 *
 * @throws IdempotencyError (`no-scope`) outside a guarded handler
 * @example
 * await idempotencyOf(c).beginEffect('charge');
 */
export function idempotencyOf(c: Context): IdempotencyScope {
  return idempotencyOfRequest(c);
}

/** `c.env` as `hono/aws-lambda` (and `@hono/aws-lambda`) set it. */
function adapterInvocation(c: Context): LambdaInvocation | undefined {
  const env = c.env as { event?: unknown; lambdaContext?: unknown } | undefined;
  return env && typeof env === 'object' && env.event !== undefined
    ? { event: env.event, context: env.lambdaContext }
    : undefined;
}

/**
 * The route the request is for: the guard's own when it is on the route, else (mounted with
 * `app.use`) the last method route matched, the handler's; undefined when there is none.
 */
function routePatternOf(c: Context): string | undefined {
  const routes = matchedRoutes(c);
  const own = routes[c.req.routeIndex];
  if (own && own.method !== ANY_METHOD) return routePath(c);
  return [...routes].reverse().find((route) => route.method !== ANY_METHOD)?.path;
}

function responseOf(response: HttpResponse): Response {
  const { statusCode, headers, body } = responseToSend(response);
  const fetchHeaders = new Headers();
  for (const [name, value] of Object.entries(headers))
    for (const one of Array.isArray(value) ? value : [value]) fetchHeaders.append(name, one);
  const noBody = statusCode === 204 || statusCode === 304 || body.byteLength === 0;
  return new Response(noBody ? null : new Uint8Array(body), { status: statusCode, headers: fetchHeaders });
}

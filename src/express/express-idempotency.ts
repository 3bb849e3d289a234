import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { readFunction } from '../core/index.js';
import type { IdempotencyScope } from '../engine/index.js';
import {
  doorRequest,
  HttpGuard,
  idempotencyOfRequest,
  readsLambdaEvent,
  resolveHttpGuardOptions,
  type DoorAnswer,
  type DoorEnding,
  type HttpGuardOptions,
  type LambdaInvocation,
} from '../http/index.js';
import { RaisedErrors } from './raised-errors.js';
import { requestBodyOf } from './request-body.js';
import { ResponseCapture } from './response-capture.js';

/** Options of the Express door: the HTTP guard's, read from the Express request. */
export interface ExpressIdempotencyOptions extends HttpGuardOptions<Request> {
  /**
   * The Lambda invocation behind a request, when the app runs in a Lambda behind an adapter: its
   * event gives the authorizer's principal (the default tenant) and the request as
   * `httpIdempotency` reads it; its context the deadline and the request id.
   * @default `req.apiGateway` (`serverless-http`; `@codegenie/serverless-express` with its `eventContext()` middleware)
   * @example
   * import { getCurrentInvoke } from '@codegenie/serverless-express';
   * idempotency({ journal, lambdaInvocation: () => getCurrentInvoke() })
   */
  readonly lambdaInvocation?: (req: Request) => LambdaInvocation | undefined;
}

const FACTORY = 'idempotency (idemkit/express)';
const raised = new RaisedErrors();

/**
 * Express 4/5 route middleware that makes a route safe to retry: one execution per idempotency
 * key, the first outcome replayed, key reuse with other parameters refused. The handler's
 * response (`res.json`, `res.send`, a stream piped into `res`) is held back until it is stored,
 * then sent. The default operation is the method and the route pattern (`POST /payments/{id}/refunds`
 * for `app.post('/payments/:id/refunds', ...)`).
 *
 * @example
 * app.post('/payments', idempotency({ journal }), async (req, res) => {
 *   const scope = idempotencyOf(req);
 *   res.status(201).json(await createPayment(req.body, scope.deriveKey('charge')));
 * });
 */
export function idempotency(options: ExpressIdempotencyOptions): RequestHandler {
  const settings = resolveHttpGuardOptions(FACTORY, options, ['lambdaInvocation']);
  const invocationOf = readFunction(FACTORY, 'lambdaInvocation', options.lambdaInvocation, adapterInvocation);
  const guard = new HttpGuard(settings);

  async function guarded(req: Request, res: Response, next: NextFunction): Promise<void> {
    const invocation = invocationOf(req);
    const body = readsLambdaEvent(invocation) ? undefined : await requestBodyOf(req).catch((error: unknown) => error);
    const request = doorRequest({
      source: req,
      method: req.method,
      routePattern: routePatternOf(req),
      url: req.originalUrl,
      headers: req.headers,
      body: () => {
        if (body instanceof Error) throw body;
        return body;
      },
      invocation,
    });
    let capture: ResponseCapture | undefined;
    let answer: DoorAnswer;
    try {
      answer = await guard.handle(request, async (): Promise<DoorEnding> => {
        capture = new ResponseCapture(res);
        next();
        const response = await capture.ended;
        const error = raised.of(req);
        return error && response.statusCode >= 500 ? { kind: 'threw', error } : { kind: 'returned', response };
      });
    } catch (error) {
      capture?.release();
      throw error;
    }
    if (answer.kind === 'pass') return next();
    if (answer.kind === 'own') return capture?.sendOwn();
    if (capture) return capture.sendAnswer(answer.response);
    new ResponseCapture(res).sendAnswer(answer.response);
  }

  return function idempotencyMiddleware(req: Request, res: Response, next: NextFunction): void {
    guarded(req, res, next).catch(next);
  };
}

/**
 * The idempotency scope of the guarded request `req`, inside its route handler.
 *
 * @throws IdempotencyError (`no-scope`) outside a guarded handler
 * @example
 * await idempotencyOf(req).beginEffect('charge');
 */
export function idempotencyOf(req: Request): IdempotencyScope {
  return raised.watch(req, idempotencyOfRequest(req));
}

/** `req.apiGateway`: where `serverless-http` (and `@codegenie/serverless-express`'s `eventContext()`) put the invocation. */
function adapterInvocation(req: Request): LambdaInvocation | undefined {
  const invocation = (req as Request & { apiGateway?: unknown }).apiGateway;
  return typeof invocation === 'object' && invocation !== null ? (invocation as LambdaInvocation) : undefined;
}

/** The matched route's pattern behind the router's mount path; undefined before routing (`app.use`). */
function routePatternOf(req: Request): string | undefined {
  const path: unknown = (req.route as { path?: unknown } | undefined)?.path;
  return typeof path === 'string' ? `${req.baseUrl ?? ''}${path}` : undefined;
}

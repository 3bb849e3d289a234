import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import express, { type ErrorRequestHandler, type Express, type Request, type Response } from 'express';
import serverless from 'serverless-http';
import { idempotency, idempotencyOf } from '../../express/index.js';
import { callerTenant, jsonText, problem } from '../http-responses.js';
import type { RouteRequest } from '../route-request.js';
import { paymentCreator } from './create-payment.js';
import { refundCreator, type CreateRefundDependencies } from './create-refund.js';
import { paymentReader } from './get-payment.js';

/** What the Lambdalith needs: what its three routes need. */
export type PaymentsLambdalithDependencies = CreateRefundDependencies;

/** Bodies past Lambda's 6 MB invocation payload never reach a function; the parser's own 100 kB default would refuse less. */
const BODY_LIMIT = '6mb';

/**
 * The payments API as one Express app, the same routes as the per-route Middy functions
 * (`POST /payments`, `GET /payments/:id`, `POST /payments/:id/refunds`), the same route bodies and
 * the same scopes: the operation is the route pattern (`POST /payments/{id}/refunds`, what the
 * Middy functions name theirs), the tenant the JWT `sub` read from the API Gateway event. A key
 * sent to a per-route function therefore replays here, and the other way round.
 *
 * @example
 * const app = createPaymentsApp({ journal, docClient, paymentsTable: 'payments' });
 * app.listen(3000, '127.0.0.1');
 */
export function createPaymentsApp(deps: PaymentsLambdalithDependencies): Express {
  const createPayment = paymentCreator(deps);
  const createRefund = refundCreator(deps);
  const getPayment = paymentReader(deps);
  const guarded = idempotency({
    journal: deps.journal,
    tenant: tenantOf,
    recover: async () => ({ outcome: 'rerun' }),
    ...deps.guardOptions,
  });
  // Raw bytes, parsed as the Middy functions parse an event's body: a body that is not JSON reaches
  // the route as `undefined` and is answered by its validation, never by the parser's own error page.
  const body = express.raw({ type: () => true, limit: BODY_LIMIT });

  const app = express();
  app.disable('x-powered-by');
  app.post('/payments', guarded, body, async (req, res) => {
    send(res, await createPayment(routeRequestOf(req), idempotencyOf(req)));
  });
  app.get('/payments/:id', async (req, res) => {
    send(res, await getPayment(routeRequestOf(req)));
  });
  app.post('/payments/:id/refunds', guarded, body, async (req, res) => {
    send(res, await createRefund(routeRequestOf(req), idempotencyOf(req)));
  });
  app.use((req, res) => {
    send(res, problem(404, 'route-not-found', `No route ${req.method} ${req.path}`));
  });
  app.use(answerError);
  return app;
}

/**
 * The Lambdalith's Lambda handler: {@link createPaymentsApp} behind `serverless-http`, for an
 * HTTP API route `ANY /{proxy+}`.
 *
 * @example export const handler = paymentsLambdalithHandler({ journal, docClient, paymentsTable });
 */
export function paymentsLambdalithHandler(deps: PaymentsLambdalithDependencies) {
  return serverless(createPaymentsApp(deps));
}

/** The caller's tenant as the per-route functions read it: the JWT `sub` of the event `serverless-http` keeps on the request. */
function tenantOf(req: Request): string {
  const event = (req as Request & { apiGateway?: { event?: APIGatewayProxyEventV2 } }).apiGateway?.event;
  return event ? callerTenant(event) : '-';
}

function routeRequestOf(req: Request): RouteRequest {
  const id: unknown = req.params.id;
  return {
    tenant: tenantOf(req),
    body: Buffer.isBuffer(req.body) ? jsonText(req.body.toString('utf8')) : undefined,
    ...(typeof id === 'string' ? { paymentId: id } : {}),
  };
}

/** Sends a route's answer as the Middy functions return it: status, headers and body, nothing added. */
function send(res: Response, answer: APIGatewayProxyStructuredResultV2): void {
  res.status(answer.statusCode ?? 200);
  for (const [name, value] of Object.entries(answer.headers ?? {})) res.setHeader(name, String(value));
  res.end(answer.body ?? '');
}

/**
 * A route's error as a 500 problem, never Express's error page (which carries the stack trace
 * outside production). A 5xx is not stored, so the key is let go and a retry runs again; a guard
 * error the route let through (a refund claim taken) is answered by the guard, as under Middy.
 */
const answerError: ErrorRequestHandler = (error, _req, res, next) => {
  if (res.headersSent) return next(error);
  send(res, problem(500, 'internal-error', 'The request could not be completed'));
};

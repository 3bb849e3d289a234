import middy from '@middy/core';
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import express, { type Express, type RequestHandler } from 'express';
import serverless from 'serverless-http';
import { httpIdempotency, MemoryJournal } from '../../src/index.js';
import { idempotency, type ExpressIdempotencyOptions } from '../../src/entries/express.js';
import { httpApiEvent, lambdaContext } from '../../src/testing/index.js';

/**
 * Moving a route from a Middy function to a Lambdalith (docs/frameworks.md, "Moving a route from
 * a Middy function to a Lambdalith"): a key replays across the move exactly when both sides name
 * the same operation. For each pair of an API Gateway route and an Express route the guide lists,
 * a request runs through the Middy function first and is retried through the Express app behind
 * `serverless-http` (an `ANY /{proxy+}` route): it replays when the default operations are equal,
 * and runs a second time when they are not, until the guide's `operation` is set.
 */

type Answer = { statusCode: number; headers?: Record<string, unknown>; body?: string };
type Lambda = (event: APIGatewayProxyEventV2, context: Context) => Promise<Answer>;

interface Move {
  /** The API Gateway route key of the Middy function (`$default` for a function without routes). */
  readonly routeKey: string;
  /** The concrete path of the request. */
  readonly path: string;
  /**
   * The path the Lambdalith receives.
   * @default the same path
   */
  readonly lambdalithPath?: string;
  /** Mounts the guarded route on the Lambdalith's app. */
  readonly mount: (app: Express, guard: RequestHandler, handler: RequestHandler) => void;
}

/** Runs the request through the Middy function, then retries it through the Lambdalith; says who ran it. */
async function moveRoute(move: Move, options: Partial<ExpressIdempotencyOptions> = {}) {
  const journal = new MemoryJournal();
  const ran: string[] = [];
  const middyFunction = middy(async () => {
    ran.push('middy');
    return { statusCode: 201, headers: { 'content-type': 'application/json' }, body: '{"ran":"middy"}' };
  }).use(httpIdempotency({ journal })) as unknown as Lambda;
  const app = express();
  move.mount(app, idempotency({ journal, ...options }), (_req, res) => {
    ran.push('express');
    res.status(201).json({ ran: 'express' });
  });
  const lambdalith = serverless(app) as unknown as Lambda;
  const request = {
    method: 'POST',
    path: move.path,
    idempotencyKey: 'k-move-1',
    body: { amount: 5 },
    principal: 'u-1',
  };
  const route = move.routeKey === '$default' ? move.path : move.routeKey.slice(move.routeKey.indexOf(' ') + 1);

  const first = httpApiEvent({ ...request, route });
  await middyFunction(
    { ...first, routeKey: move.routeKey, requestContext: { ...first.requestContext, routeKey: move.routeKey } },
    lambdaContext(),
  );
  const retry = httpApiEvent({ ...request, path: move.lambdalithPath ?? move.path, route: '/{proxy+}' });
  const proxied = {
    ...retry,
    routeKey: 'ANY /{proxy+}',
    requestContext: { ...retry.requestContext, routeKey: 'ANY /{proxy+}' },
  };
  const moved = await lambdalith(proxied, lambdaContext());

  return { ran, replayed: moved.body === '{"ran":"middy"}', status: moved.statusCode };
}

const route =
  (pattern: string): Move['mount'] =>
  (app, guard, handler) =>
    app.post(pattern, guard, handler);

describe('moving a route from a Middy function to a Lambdalith', () => {
  it.each<[string, Move]>([
    [
      'POST /payments and app.post("/payments")',
      { routeKey: 'POST /payments', path: '/payments', mount: route('/payments') },
    ],
    [
      'POST /payments/{id}/refunds and app.post("/payments/:id/refunds")',
      { routeKey: 'POST /payments/{id}/refunds', path: '/payments/p_1/refunds', mount: route('/payments/:id/refunds') },
    ],
    [
      'POST /files/{path+} and app.post("/files/*path") (Express 5)',
      { routeKey: 'POST /files/{path+}', path: '/files/a/b.txt', mount: route('/files/*path') },
    ],
    [
      'POST /payments/{id} and router.post("/:id") mounted at /payments',
      {
        routeKey: 'POST /payments/{id}',
        path: '/payments/p_1',
        mount: (app, guard, handler) => {
          const router = express.Router();
          router.post('/:id', guard, handler);
          app.use('/payments', router);
        },
      },
    ],
    [
      '$default (the concrete path) and app.use(idempotency()) before routing',
      {
        routeKey: '$default',
        path: '/payments/p_1/refunds',
        mount: (app, guard, handler) => {
          app.use(guard);
          app.post('/payments/:id/refunds', handler);
        },
      },
    ],
  ])('replays across the move with the default operations: %s', async (_name, move) => {
    const { ran, replayed } = await moveRoute(move);

    expect(ran).toEqual(['middy']);
    expect(replayed).toBe(true);
  });

  it.each<[string, Move, string]>([
    [
      'the parameter is named otherwise: POST /payments/{paymentId} and app.post("/payments/:id")',
      { routeKey: 'POST /payments/{paymentId}', path: '/payments/p_1', mount: route('/payments/:id') },
      'POST /payments/{paymentId}',
    ],
    [
      'the Middy function sat behind ANY /{proxy+}: its operation was that route key, for every path',
      { routeKey: 'ANY /{proxy+}', path: '/payments', mount: route('/payments') },
      'ANY /{proxy+}',
    ],
  ])(
    'runs again when %s, and replays once the Lambdalith names the operation Middy used',
    async (_name, move, operation) => {
      const byDefault = await moveRoute(move);
      const pinned = await moveRoute(move, { operation });

      expect(byDefault).toMatchObject({ ran: ['middy', 'express'], replayed: false });
      expect(pinned).toMatchObject({ ran: ['middy'], replayed: true });
    },
  );

  it('sees another request under a path prefix (ANY /lambdalith/{proxy+}): the key runs again, or with the operation pinned is refused 422', async () => {
    const prefixed: Move = {
      routeKey: 'POST /payments',
      path: '/payments',
      lambdalithPath: '/lambdalith/payments',
      mount: (app, guard, handler) => {
        const router = express.Router();
        router.post('/payments', guard, handler);
        app.use('/lambdalith', router);
      },
    };

    const byDefault = await moveRoute(prefixed);
    const pinned = await moveRoute(prefixed, { operation: 'POST /payments' });

    expect(byDefault).toMatchObject({ ran: ['middy', 'express'], replayed: false });
    expect(pinned).toMatchObject({ ran: ['middy'], replayed: false, status: 422 });
  });
});

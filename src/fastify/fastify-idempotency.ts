import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { Transform, type Readable } from 'node:stream';
import { readFunction } from '../core/index.js';
import type { IdempotencyScope } from '../engine/index.js';
import {
  BodyCapture,
  capturedResponse,
  doorRequest,
  HttpGuard,
  idempotencyOfRequest,
  OversizedResponse,
  readsLambdaEvent,
  resolveHttpGuardOptions,
  responseToSend,
  type DoorAnswer,
  type DoorEnding,
  type HeaderValue,
  type HttpGuardOptions,
  type HttpResponse,
  type LambdaInvocation,
} from '../http/index.js';

/** Options of the Fastify door: the HTTP guard's, read from the Fastify request. */
export interface FastifyIdempotencyOptions extends HttpGuardOptions<FastifyRequest> {
  /**
   * The Lambda invocation behind a request, when the app runs in a Lambda behind an adapter: its
   * event gives the authorizer's principal (the default tenant) and the request as
   * `httpIdempotency` reads it; its context the deadline and the request id.
   * @default `request.awsLambda` (`@fastify/aws-lambda` with its default `decorateRequest`)
   */
  readonly lambdaInvocation?: (request: FastifyRequest) => LambdaInvocation | undefined;
}

const FACTORY = 'idempotency (idemkit/fastify)';

/** A guarded request between its admission (`preHandler`) and its answer (`onSend`). */
interface Running {
  readonly end: (ending: DoorEnding) => void;
  readonly answer: Promise<DoorAnswer>;
  /** The handler's error, when Fastify is sending its error answer. */
  error?: unknown;
}

/** Per request: the body bytes read on their way to the parser, and the running attempt. */
interface RequestState {
  body?: Buffer[];
  running?: Running;
}

const states = new WeakMap<FastifyRequest, RequestState>();

/**
 * Fastify plugin that makes the routes registered after it safe to retry: one execution per
 * idempotency key, the first outcome replayed, key reuse with other parameters refused. The
 * handler's reply (`reply.send`, a returned value, a stream that ends normally) is stored before
 * it is sent. The default operation is the method and the route pattern
 * (`POST /payments/{id}/refunds` for `/payments/:id/refunds`).
 *
 * @example
 * await app.register(idempotency, { journal });
 * app.post('/payments', async (request, reply) => {
 *   const scope = idempotencyOf(request);
 *   return reply.code(201).send(await createPayment(request.body, scope.deriveKey('charge')));
 * });
 */
export const idempotency: FastifyPluginAsync<FastifyIdempotencyOptions> = async function idempotency(app, options) {
  const settings = resolveHttpGuardOptions(FACTORY, options, ['lambdaInvocation']);
  const invocationOf = readFunction(FACTORY, 'lambdaInvocation', options.lambdaInvocation, adapterInvocation);
  const guard = new HttpGuard(settings);

  app.addHook('preParsing', async function keepBodyBytes(request, _reply, payload) {
    if (readsLambdaEvent(invocationOf(request))) return payload;
    const chunks: Buffer[] = [];
    stateOf(request).body = chunks;
    // The parser reads what passes through; the guard keeps a copy of the bytes for the fingerprint.
    const copy = Object.assign(
      new Transform({
        transform(chunk: Buffer, _encoding, callback) {
          chunks.push(chunk);
          copy.receivedEncodedLength += chunk.byteLength;
          callback(null, chunk);
        },
      }),
      { receivedEncodedLength: 0 },
    );
    payload.on('error', (error) => copy.destroy(error));
    return payload.pipe(copy);
  });

  app.addHook('preHandler', async function admit(request, reply) {
    const state = stateOf(request);
    const invocation = invocationOf(request);
    let end!: (ending: DoorEnding) => void;
    const ending = new Promise<DoorEnding>((resolve) => (end = resolve));
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    const answer = guard.handle(
      doorRequest({
        source: request,
        method: request.method,
        routePattern: request.routeOptions.url,
        url: request.url,
        headers: request.headers,
        body: () => (state.body ? Buffer.concat(state.body) : undefined),
        invocation,
      }),
      () => {
        started();
        return ending;
      },
    );
    // Awaited in onSend; a request Fastify never sends (its client gone before the handler) must not leave it unhandled.
    answer.catch(() => undefined);
    const before = await Promise.race([answer, running]);
    if (before === undefined) {
      state.running = { end, answer };
      return;
    }
    if (before.kind === 'answer') return send(reply, before.response);
  });

  app.addHook('onError', async function noteError(request, _reply, error) {
    const running = states.get(request)?.running;
    if (running) running.error = error;
  });

  app.addHook('onSend', async function store(request, reply, payload) {
    const state = states.get(request);
    const running = state?.running;
    if (!running) return payload;
    state.running = undefined;
    const captured = await capture(reply, payload);
    running.end(
      running.error === undefined
        ? { kind: 'returned', response: captured.response }
        : { kind: 'threw', error: running.error },
    );
    const answer = await running.answer;
    if (answer.kind !== 'answer') return captured.bytes;
    for (const name of Object.keys(reply.getHeaders())) reply.removeHeader(name);
    const { statusCode, headers, body } = responseToSend(answer.response);
    reply.code(statusCode).headers(headers);
    return body;
  });
};

// Registered with `app.register`, the plugin's hooks apply where it is registered, as fastify-plugin's do.
Object.assign(idempotency, {
  [Symbol.for('skip-override')]: true,
  [Symbol.for('fastify.display-name')]: 'idemkit-idempotency',
});

/**
 * The idempotency scope of the guarded request `request`, inside its handler.
 *
 * @throws IdempotencyError (`no-scope`) outside a guarded handler
 * @example
 * await idempotencyOf(request).beginEffect('charge');
 */
export function idempotencyOf(request: FastifyRequest): IdempotencyScope {
  return idempotencyOfRequest(request);
}

function stateOf(request: FastifyRequest): RequestState {
  let state = states.get(request);
  if (!state) states.set(request, (state = {}));
  return state;
}

/** `request.awsLambda`, as `@fastify/aws-lambda` decorates it. */
function adapterInvocation(request: FastifyRequest): LambdaInvocation | undefined {
  const invocation = (request as FastifyRequest & { awsLambda?: unknown }).awsLambda;
  return typeof invocation === 'object' && invocation !== null ? (invocation as LambdaInvocation) : undefined;
}

function send(reply: FastifyReply, response: HttpResponse): FastifyReply {
  const { statusCode, headers, body } = responseToSend(response);
  return reply.code(statusCode).headers(headers).send(body);
}

/** The reply's payload read whole (a stream to its end), as the guard's plain response, and its bytes to send. */
async function capture(reply: FastifyReply, payload: unknown): Promise<{ response: HttpResponse; bytes: Buffer }> {
  const body = new BodyCapture();
  if (isStream(payload)) {
    for await (const chunk of payload) {
      // Past the limit nothing more is kept: the rest of the stream is not read.
      if (!body.add(chunk)) {
        payload.destroy();
        break;
      }
    }
  } else if (payload !== undefined && payload !== null) body.add(payload);
  const bytes = body.bytes();
  if (body.overLimit) return { response: new OversizedResponse(reply.statusCode, body.sizeBytes), bytes };
  return {
    response: capturedResponse(reply.statusCode, reply.getHeaders() as Record<string, HeaderValue>, bytes),
    bytes,
  };
}

function isStream(payload: unknown): payload is Readable {
  return typeof (payload as Readable | null)?.pipe === 'function' && Symbol.asyncIterator in (payload as object);
}

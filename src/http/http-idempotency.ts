import { readBoolean } from '../core/index.js';
import { legacyLookupOf, type MigrationSource } from '../engine/index.js';
import { defaultTenant, viewHttpEvent } from './http-event.js';
import { HttpGuard, type HttpGuardRequest, type RunningHttpRequest, type UnreadableHttpRequest } from './http-guard.js';
import { resolveHttpGuardOptions, type HttpGuardOptions } from './http-guard-options.js';
import type { HttpResponse } from './http-response.js';
import type { HttpIdempotencyMiddleware, MiddyRequest } from './middy-middleware.js';
import { streamedAnswer, streamedResponseOf } from './streamed-response.js';

/** Options of {@link httpIdempotency}: the HTTP guard's, read from the Lambda event. */
export interface HttpIdempotencyOptions extends HttpGuardOptions<any> {
  /**
   * The idempotency library being replaced: while its records live, a new key first reads the
   * record it holds for the same raw event, and a completed or running request is answered, not re-run.
   * @default undefined (no migration)
   */
  readonly migrateFrom?: MigrationSource;
  /**
   * Set when the handler is `middy(handler, { streamifyResponse: true })` (Lambda response
   * streaming: Function URLs, REST APIs with `responseTransferMode: STREAM`). The guard's own
   * answers (replays, problems) are then shaped for the response stream: a body stored as base64
   * is sent as its bytes, since the stream's metadata has no `isBase64Encoded`. A streamed body
   * (`Readable` or `ReadableStream`) is passed through and stored when it ends, with or without
   * this option; without it, a binary body would replay as its base64 text.
   * @default false
   */
  readonly streamifyResponse?: boolean;
}

const FACTORY = 'httpIdempotency';
/** Where the running attempt waits between `before` and `after`/`onError` (Middy's per-request state). */
const STATE = 'idemkit';

/**
 * Middy middleware that makes an HTTP Lambda handler safe to retry: one execution per
 * idempotency key, the first outcome replayed, key reuse with other parameters refused.
 * Works for API Gateway REST (v1), HTTP APIs (v2), Function URLs and ALB.
 *
 * @example
 * export const handler = middy(createPayment).use(
 *   httpIdempotency({ journal: new DynamoDBJournal({ tableName: process.env.IDEMKIT_TABLE_NAME! }) }),
 * );
 */
export function httpIdempotency(options: HttpIdempotencyOptions): HttpIdempotencyMiddleware {
  const settings = resolveHttpGuardOptions(FACTORY, options, ['migrateFrom', 'streamifyResponse']);
  const guard = new HttpGuard(settings, legacyLookupOf(FACTORY, options.migrateFrom, settings.engine));
  const streaming = readBoolean(FACTORY, 'streamifyResponse', options.streamifyResponse, false);
  // The guard's own answers, in the form the handler's response goes out in.
  const shaped = (response: HttpResponse | undefined) =>
    streaming && response !== undefined ? streamedAnswer(response) : response;

  const idempotencyBefore = async (request: MiddyRequest): Promise<HttpResponse | undefined> => {
    const admission = await guard.admit(guardRequestOf(request));
    if (admission.kind === 'answer') return shaped(admission.response) as HttpResponse;
    if (admission.kind === 'run') (request.internal as Record<string, unknown>)[STATE] = admission.running;
    return undefined;
  };

  const idempotencyAfter = async (request: MiddyRequest): Promise<void> => {
    const running = takeState(request);
    if (!running) return;
    const streamed = streamedResponseOf(request.response);
    if (streamed) {
      const body = await guard.concludeStreamed(running, streamed);
      request.response = request.response === streamed.body ? body : { ...(request.response as object), body };
      return;
    }
    const result = request.response;
    const response = await guard.concludeReturned(running, result);
    request.response = response === result ? response : shaped(response);
  };

  const idempotencyOnError = async (request: MiddyRequest): Promise<void> => {
    const running = takeState(request);
    // A response another middleware already set stays as it is.
    if (running) {
      const answered = request.response as HttpResponse | undefined;
      const response = await guard.concludeThrew(running, request.error, answered);
      request.response = response === answered ? response : shaped(response);
    }
  };

  return { before: idempotencyBefore, after: idempotencyAfter, onError: idempotencyOnError };
}

/** The guard's request of a Lambda HTTP event; the scope is bound to the invocation's context. */
function guardRequestOf(request: MiddyRequest): HttpGuardRequest<unknown> | UnreadableHttpRequest<unknown> {
  const { event, context } = request;
  try {
    const view = viewHttpEvent(event);
    return {
      ...view,
      defaultTenant: () => defaultTenant(view),
      source: event,
      legacyEvent: event,
      context,
    };
  } catch (unreadable) {
    return { unreadable, source: event, context };
  }
}

function takeState(request: MiddyRequest): RunningHttpRequest | undefined {
  const internal = request.internal as Record<string, unknown>;
  const state = internal[STATE] as RunningHttpRequest | undefined;
  if (!state) return undefined;
  delete internal[STATE];
  return state;
}

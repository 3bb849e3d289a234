import type { Context } from 'aws-lambda';
import type { HttpResponse } from './http-response.js';

/**
 * What a Middy hook is handed: the parts of Middy's `Request` the HTTP middleware reads and writes.
 * Declared here instead of imported from `@middy/core`, so idemkit's declarations never name Middy's
 * types: a project that does not install Middy (a queue worker on `makeIdempotent`) type-checks them
 * with `skipLibCheck: false`. The `Request` of Middy 5, 6 and 7 all fit it.
 *
 * @example
 * const before: (request: MiddyRequest) => unknown = httpIdempotency({ journal }).before;
 */
export interface MiddyRequest {
  /** The Lambda event. */
  readonly event: unknown;
  /** The Lambda context. */
  readonly context: Context;
  /** The handler's result; the middleware replaces it with the stored or refused answer. */
  response: unknown;
  /** What the handler threw (in `onError`). */
  readonly error: unknown;
  /** Middy's per-request state, where the running attempt waits between `before` and `after`/`onError`. */
  readonly internal: Record<never, never>;
}

/**
 * The middleware {@link httpIdempotency} returns: a Middy middleware object, given to a handler's
 * `.use()` (Middy 5, 6 or 7). Its types are idemkit's own (see {@link MiddyRequest}).
 *
 * @example
 * export const handler = middy(createPayment).use(httpIdempotency({ journal: new DynamoDBJournal() }));
 */
export interface HttpIdempotencyMiddleware {
  /** Reserves the key: answers a replay, a conflict or a refusal at once, or lets the handler run. */
  readonly before: (request: MiddyRequest) => Promise<HttpResponse | undefined>;
  /** Stores the handler's answer as the key's outcome. */
  readonly after: (request: MiddyRequest) => Promise<void>;
  /** Settles the attempt after the handler threw: released for a retry, or marked unknown after an effect began. */
  readonly onError: (request: MiddyRequest) => Promise<void>;
}

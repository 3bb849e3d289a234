import { InProgressError, JournalThrottledError, JournalUnavailableError } from '../core/errors.js';

/**
 * Statuses that mean "the request may not have been processed; the same request can succeed
 * later": request timeout, rate limited, and the three gateway/availability failures.
 * 500 is absent on purpose: it usually means the server ran and failed deterministically.
 */
const RETRYABLE_STATUS_CODES: ReadonlySet<number> = new Set([408, 429, 502, 503, 504]);

/** Problem `type` suffix of a 409 that only says "the first attempt is still running". */
const IN_PROGRESS_PROBLEM_SUFFIX = 'request-in-progress';

/** Socket and DNS failures (Node and undici codes) where the request may never have arrived. */
const NETWORK_ERROR_CODES: ReadonlySet<string> = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EAI_AGAIN',
  'ENETDOWN',
  'ENETUNREACH',
  'EHOSTUNREACH',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
]);

/**
 * The messages fetch implementations put on the `TypeError` they throw for a network failure
 * (undici, Chrome, Firefox, Safari, React Native). Any other `TypeError` is a bug in the
 * caller's code and must not be retried.
 */
const FETCH_NETWORK_MESSAGES: ReadonlySet<string> = new Set([
  'fetch failed',
  'terminated',
  'Failed to fetch',
  'NetworkError when attempting to fetch resource.',
  'Load failed',
  'Network request failed',
]);

/** How deep to follow `cause` chains looking for a network code (undici nests two levels). */
const MAX_CAUSE_DEPTH = 5;

/**
 * The default `isRetryable`: true only for ambiguous or transient outcomes.
 *
 * Retried: network errors, timeouts, HTTP 408, 429, 502, 503, 504, a 409 whose
 * `application/problem+json` `type` ends in `request-in-progress`, and the toolkit's own
 * `InProgressError` and `JournalUnavailableError` (a `JournalThrottledError` among them). Never retried: any other 4xx (400, 401,
 * 403, 409, 422, …), 500, successful responses, and any other error.
 *
 * It returns a promise (a 409's body must be read): await it before combining it with `&&`.
 *
 * @example
 * retry(call, { isRetryable: async (outcome, attempt) => attempt < 3 && (await isRetryableByDefault(outcome)) })
 */
export async function isRetryableByDefault(errorOrResult: unknown): Promise<boolean> {
  if (isResponseLike(errorOrResult)) return isRetryableResponse(errorOrResult);
  return isRetryableError(errorOrResult);
}

/**
 * Whether a response's status (and, for 409, its problem `type`) is worth another attempt.
 *
 * @example
 * await isRetryableResponse(new Response(null, { status: 503 })) // true
 */
export async function isRetryableResponse(response: ResponseLike): Promise<boolean> {
  if (RETRYABLE_STATUS_CODES.has(response.status)) return true;
  return response.status === 409 && (await isInProgressProblem(response));
}

async function isInProgressProblem(response: ResponseLike): Promise<boolean> {
  const contentType = response.headers.get('content-type') ?? '';
  if (!/^application\/problem\+json\s*(;|$)/i.test(contentType)) return false;
  try {
    // A clone, so whoever receives the response as the final result can still read its body.
    const problem = (await response.clone().json()) as { type?: unknown } | null;
    return typeof problem?.type === 'string' && problem.type.endsWith(IN_PROGRESS_PROBLEM_SUFFIX);
  } catch {
    return false;
  }
}

/**
 * Whether a thrown error is a network failure, a timeout, or a toolkit error that asks for a retry.
 *
 * @example
 * isRetryableError(new TypeError('fetch failed')) // true
 */
function isRetryableError(error: unknown): boolean {
  if (error instanceof InProgressError || error instanceof JournalUnavailableError) return true;
  return isNetworkError(error) || isTimeoutError(error);
}

/**
 * A network-level failure: a fetch `TypeError` with a known network message, or an error
 * (or one of its causes) carrying a socket/DNS error code such as `ECONNRESET`.
 *
 * @example
 * isNetworkError(Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' })) // true
 */
function isNetworkError(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; depth < MAX_CAUSE_DEPTH && current !== null && typeof current === 'object'; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && NETWORK_ERROR_CODES.has(code)) return true;
    current = (current as { cause?: unknown }).cause;
  }
  return hasName(error, 'TypeError') && FETCH_NETWORK_MESSAGES.has((error as Error).message);
}

/**
 * A timeout, as raised by `AbortSignal.timeout()` or a per-attempt timeout: a `DOMException`
 * named `TimeoutError` (its name is the standard discriminator; there is no subclass).
 *
 * @example
 * isTimeoutError(new DOMException('timed out', 'TimeoutError')) // true
 */
function isTimeoutError(error: unknown): boolean {
  return hasName(error, 'TimeoutError');
}

/**
 * Matches by `name` because `instanceof` fails across realms: fetch and `DOMException` may
 * come from another realm than the caller's code (iframes, workers, test sandboxes).
 */
function hasName(error: unknown, name: string): boolean {
  return error !== null && typeof error === 'object' && (error as { name?: unknown }).name === name;
}

/**
 * Parses an HTTP `Retry-After` value into a wait in milliseconds from `nowMs`.
 *
 * Accepts both forms of RFC 9110 §10.2.3: delta-seconds (`120`) and an HTTP-date
 * (`Wed, 21 Oct 2015 07:28:00 GMT`). A date in the past means "now" (0). Anything else,
 * including fractions and negative numbers, is ignored (`undefined`) rather than guessed at.
 *
 * @example
 * parseRetryAfterMs('2', Date.now()) // 2000
 */
export function parseRetryAfterMs(value: string | null | undefined, nowMs: number): number | undefined {
  if (value === null || value === undefined) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  // Date.parse also accepts bare numbers such as "-1" or "1.5" as years; a real HTTP-date
  // always names a weekday or month, so require a letter before trusting it.
  if (!/[a-z]/i.test(trimmed)) return undefined;
  const dateMs = Date.parse(trimmed);
  return Number.isNaN(dateMs) ? undefined : Math.max(0, dateMs - nowMs);
}

/**
 * The server's requested wait carried by an outcome, if any: a response's `Retry-After`
 * header, or the `retryAfterSeconds` of an `InProgressError` or a `JournalThrottledError` thrown by a guarded function.
 *
 * @example
 * retryAfterMsOf(new InProgressError(1), Date.now()) // 1000
 */
export function retryAfterMsOf(errorOrResult: unknown, nowMs: number): number | undefined {
  if (errorOrResult instanceof InProgressError || errorOrResult instanceof JournalThrottledError)
    return errorOrResult.retryAfterSeconds * 1000;
  if (isResponseLike(errorOrResult)) return parseRetryAfterMs(errorOrResult.headers.get('retry-after'), nowMs);
  return undefined;
}

/**
 * The parts of a Fetch `Response` the retry client reads. Duck-typed so that responses from
 * another realm or another fetch implementation are recognised too.
 */
export interface ResponseLike {
  readonly status: number;
  readonly headers: { get(name: string): string | null };
  readonly body?: { cancel(reason?: unknown): Promise<void> } | null;
  clone(): { json(): Promise<unknown> };
}

/**
 * Whether `value` looks like a Fetch `Response`.
 *
 * @example
 * isResponseLike(await fetch(url)) // true
 */
export function isResponseLike(value: unknown): value is ResponseLike {
  if (value === null || typeof value !== 'object') return false;
  const candidate = value as Partial<ResponseLike>;
  return (
    typeof candidate.status === 'number' &&
    typeof candidate.headers?.get === 'function' &&
    typeof candidate.clone === 'function'
  );
}

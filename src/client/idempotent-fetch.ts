import { InvalidOptionsError } from '../core/errors.js';
import { attemptSignal } from './abort.js';
import {
  assertValidIdempotencyKey,
  IDEMPOTENCY_KEY_HEADER,
  keyHeaderValue,
  newIdempotencyKey,
} from './idempotency-key.js';
import { isResponseLike } from './retryable.js';
import { retry } from './retry.js';
import type { RetryContext, RetryOptions } from './retry-options.js';
import { assertKnownOptions, readFunction, readNumber } from '../core/options.js';

/**
 * Options of `idempotentFetch`, beside the usual `RequestInit`.
 *
 * @example
 * const options: IdempotentFetchOptions = { idempotencyKey: pending.key, attemptTimeoutMs: 5_000, retry: { budget } }
 */
export interface IdempotentFetchOptions {
  /** How to retry; see `RetryOptions`. @default the `retry()` defaults */
  readonly retry?: RetryOptions;
  /**
   * The key of this logical operation, sent unchanged on every attempt. Pass your own to keep
   * it across process restarts or user double-clicks (store it with the pending operation).
   * @default an `Idempotency-Key` already in `init.headers`, else `newIdempotencyKey()`
   */
  readonly idempotencyKey?: string;
  /**
   * Limit on one attempt, up to its response headers; a timed-out attempt is retried.
   * `retry.deadlineMs` bounds when attempts may start, this bounds how long each may run.
   * @default Infinity (no per-attempt limit)
   */
  readonly attemptTimeoutMs?: number;
  /** The fetch implementation. @default globalThis.fetch, looked up at call time */
  readonly fetch?: typeof globalThis.fetch;
}

const OWNER = 'idempotentFetch';

/** Defaults of {@link IdempotentFetchOptions}: no limit on one attempt (the retry deadline still applies). */
export const DEFAULT_IDEMPOTENT_FETCH_OPTIONS = Object.freeze({ attemptTimeoutMs: Infinity });
const OPTION_NAMES: readonly (keyof IdempotentFetchOptions)[] = [
  'retry',
  'idempotencyKey',
  'attemptTimeoutMs',
  'fetch',
];

/**
 * `fetch` with retries that are safe for writes: one `Idempotency-Key` per logical call, sent
 * on every attempt, so a server guarded by this toolkit performs the operation once and
 * replays its outcome to later attempts.
 *
 * Retries follow `retry()`: network errors, timeouts, 408, 429, 502, 503, 504 and a 409
 * `request-in-progress`, with full-jitter backoff, `Retry-After`, a deadline and an optional
 * budget. The last response is returned as is (check `response.ok`); a network error that
 * outlasts the retries is thrown. The body must be re-sendable (string, `ArrayBuffer`,
 * `Blob`, `FormData`, `URLSearchParams`); a stream is refused before the first attempt.
 *
 * @example
 * const response = await idempotentFetch('https://api.example.com/payments', {
 *   method: 'POST',
 *   headers: { 'content-type': 'application/json' },
 *   body: JSON.stringify({ amount: 1000, currency: 'EUR' }),
 * }, { retry: { maxAttempts: 4, deadlineMs: 10_000 } })
 */
export async function idempotentFetch(
  url: string | URL,
  init: RequestInit = {},
  options: IdempotentFetchOptions = {},
): Promise<Response> {
  assertKnownOptions(OWNER, options, OPTION_NAMES);
  const attemptTimeoutMs = readNumber(
    OWNER,
    'attemptTimeoutMs',
    options.attemptTimeoutMs,
    DEFAULT_IDEMPOTENT_FETCH_OPTIONS.attemptTimeoutMs,
    {
      min: 1,
      infinite: true,
    },
  );
  const fetchImpl = readFunction(OWNER, 'fetch', options.fetch, globalThis.fetch);
  assertReplayableBody(init.body);
  const retryOptions = options.retry ?? {};
  const signal = resolveSignal(init.signal ?? undefined, retryOptions.signal);
  const headers = new Headers(init.headers);
  const fromHeaders = headers.get(IDEMPOTENCY_KEY_HEADER);
  const key = resolveKey(fromHeaders, options.idempotencyKey);
  // A header the caller wrote is sent as written; a key we were given or made travels as one token.
  if (fromHeaders === null) headers.set(IDEMPOTENCY_KEY_HEADER, keyHeaderValue(key));
  const userOnRetry = retryOptions.onRetry;

  return retry(
    async () => {
      const attempt = attemptSignal(signal, attemptTimeoutMs);
      try {
        return await fetchImpl(url, { ...init, headers, signal: attempt.signal });
      } finally {
        attempt.dispose();
      }
    },
    {
      ...retryOptions,
      signal,
      onRetry: async (context: RetryContext) => {
        await discardBody(context.errorOrResult);
        await userOnRetry?.(context);
      },
    },
  );
}

function resolveKey(fromHeaders: string | null, fromOptions: string | undefined): string {
  if (fromOptions !== undefined && fromHeaders !== null && fromOptions !== fromHeaders) {
    throw new InvalidOptionsError(
      `${OWNER}: option 'idempotencyKey' differs from the ${IDEMPOTENCY_KEY_HEADER} header in init.headers`,
    );
  }
  const key = fromOptions ?? fromHeaders ?? newIdempotencyKey();
  assertValidIdempotencyKey(key);
  return key;
}

/** One signal for both the requests and the waits; two different ones would be ambiguous. */
function resolveSignal(fromInit: AbortSignal | undefined, fromRetry: AbortSignal | undefined): AbortSignal | undefined {
  if (fromInit !== undefined && fromRetry !== undefined && fromInit !== fromRetry) {
    throw new InvalidOptionsError(`${OWNER}: pass the AbortSignal once, as init.signal or as retry.signal`);
  }
  return fromInit ?? fromRetry;
}

function assertReplayableBody(body: RequestInit['body']): void {
  const streamed =
    (typeof ReadableStream !== 'undefined' && body instanceof ReadableStream) ||
    (typeof body === 'object' && body !== null && Symbol.asyncIterator in body);
  if (streamed) {
    throw new InvalidOptionsError(
      `${OWNER}: a stream body can only be sent once; pass a string, ArrayBuffer, Blob, FormData or URLSearchParams so retries can resend it`,
    );
  }
}

/** Frees the connection held by a response that is about to be replaced by a retry. */
async function discardBody(errorOrResult: unknown): Promise<void> {
  if (!isResponseLike(errorOrResult)) return;
  await errorOrResult.body?.cancel().catch(() => undefined);
}

import { untilAborted } from './abort.js';
import { retryAfterMsOf } from './retryable.js';
import { resolveRetryOptions, type RetryOptions, decideNextAttempt } from './retry-options.js';

type Outcome<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: unknown };

/**
 * Calls `fn` until it yields an outcome that is not retryable, or a limit is reached.
 *
 * Between attempts it waits a capped exponential backoff with full jitter
 * (`random(0, min(maxDelayMs, baseDelayMs·2^n))` before retry n + 1), or the server's
 * `Retry-After` if that is longer. It stops when `maxAttempts`, `deadlineMs` (from the start
 * of the first attempt) or the `budget` run out, or when a `Retry-After` exceeds
 * `maxRetryAfterMs` or the deadline: then the last result is returned, or the last error
 * thrown. Options are validated before the first attempt. Aborting `signal` rejects at once
 * with its reason.
 *
 * Only retry operations that are safe to repeat: reads, or writes that carry one
 * idempotency key across every attempt (see `idempotentFetch`).
 *
 * @param fn receives the 1-based attempt number.
 * @example
 * const order = await retry((attempt) => placeOrder(input), { maxAttempts: 4, deadlineMs: 10_000 })
 */
export async function retry<T>(fn: (attempt: number) => T | Promise<T>, options: RetryOptions = {}): Promise<T> {
  const resolved = resolveRetryOptions(options);
  const { signal, clock } = resolved;
  signal?.throwIfAborted();
  const startedAtMs = clock();
  resolved.budget?.recordFirstAttempt();
  for (let attempt = 1; ; attempt++) {
    const outcome = await settle(
      untilAborted(
        Promise.resolve().then(() => fn(attempt)),
        signal,
      ),
    );
    // An abort that lands while an attempt fails must win over that attempt's own error.
    signal?.throwIfAborted();
    const errorOrResult = outcome.ok ? outcome.value : outcome.error;
    const retryable = await untilAborted(Promise.resolve(resolved.isRetryable(errorOrResult, attempt)), signal);
    if (!retryable) return unwrap(outcome);
    const nowMs = clock();
    const elapsedMs = nowMs - startedAtMs;
    const decision = decideNextAttempt(resolved, {
      attempt,
      elapsedMs,
      retryAfterMs: retryAfterMsOf(errorOrResult, nowMs),
    });
    if (!decision.retry) return unwrap(outcome);
    await resolved.onRetry(Object.freeze({ attempt, delayMs: decision.delayMs, elapsedMs, errorOrResult }));
    await untilAborted(resolved.sleep(decision.delayMs, signal), signal);
  }
}

async function settle<T>(promise: Promise<T>): Promise<Outcome<T>> {
  try {
    return { ok: true, value: await promise };
  } catch (error) {
    return { ok: false, error };
  }
}

function unwrap<T>(outcome: Outcome<T>): T {
  if (outcome.ok) return outcome.value;
  throw outcome.error;
}

import type { RetryBudget } from './retry-budget.js';

/** The limits that decide whether, and after how long, a retryable outcome is retried. */
export interface RetryPolicy {
  readonly maxAttempts: number;
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
  readonly deadlineMs: number;
  readonly maxRetryAfterMs: number;
  readonly budget: RetryBudget | undefined;
  readonly random: () => number;
}

/** Where a call stands after a retryable outcome. */
export interface AttemptState {
  /** 1-based number of the attempt that just failed. */
  readonly attempt: number;
  /** Time since the first attempt started. */
  readonly elapsedMs: number;
  /** The server's requested wait, if the outcome carried one. */
  readonly retryAfterMs: number | undefined;
}

/** Which limit ended retrying. */
export type RetryStop = 'attempts' | 'retry-after' | 'deadline' | 'budget';

/** Either "wait `delayMs`, then try again" or "stop, and hand back the last outcome". */
export type RetryDecision =
  { readonly retry: true; readonly delayMs: number } | { readonly retry: false; readonly stop: RetryStop };

/**
 * Decides the next step after a retryable outcome. Pure apart from `random` and the budget,
 * so the same decision drives both `retry()` and the retry-storm simulation.
 *
 * The wait is the larger of the full-jitter backoff and the server's `Retry-After`: the
 * server's value is a floor (never retry earlier than asked), and the jitter still spreads
 * callers that were all told the same value. The budget is consulted last, so a retry that
 * the deadline forbids does not spend it.
 *
 * @example
 * decideNextAttempt(policy, { attempt: 1, elapsedMs: 40, retryAfterMs: undefined }) // { retry: true, delayMs: 73 }
 */
export function decideNextAttempt(policy: RetryPolicy, state: AttemptState): RetryDecision {
  if (state.attempt >= policy.maxAttempts) return { retry: false, stop: 'attempts' };
  const retryAfterMs = state.retryAfterMs ?? 0;
  if (retryAfterMs > policy.maxRetryAfterMs) return { retry: false, stop: 'retry-after' };
  const delayMs = Math.max(retryAfterMs, fullJitterDelayMs(state.attempt - 1, policy, policy.random));
  if (state.elapsedMs + delayMs >= policy.deadlineMs) return { retry: false, stop: 'deadline' };
  if (policy.budget !== undefined && !policy.budget.tryAcquireRetry()) return { retry: false, stop: 'budget' };
  return { retry: true, delayMs };
}

/** The two knobs of capped exponential backoff. */
export interface BackoffOptions {
  /** Ceiling of the first retry's wait; doubles on every further retry. */
  readonly baseDelayMs: number;
  /** No wait is ever longer than this. */
  readonly maxDelayMs: number;
}

/**
 * Upper bound of the wait before retry number `retryIndex + 1`: `min(maxDelayMs, baseDelayMs·2^retryIndex)`.
 *
 * @example
 * backoffCapMs(3, { baseDelayMs: 100, maxDelayMs: 20_000 }) // 800
 */
export function backoffCapMs(retryIndex: number, { baseDelayMs, maxDelayMs }: BackoffOptions): number {
  // 0 · 2^1100 is NaN, not 0: a zero base must short-circuit before the power overflows.
  if (baseDelayMs === 0) return 0;
  return Math.min(maxDelayMs, baseDelayMs * 2 ** retryIndex);
}

/**
 * Full-jitter wait in whole milliseconds, uniform over `[0, backoffCapMs(retryIndex)]`.
 *
 * Full jitter rather than "equal" or no jitter: clients that failed together must not come
 * back together, and spreading over the whole interval is what de-synchronises them best.
 *
 * @param retryIndex 0 before the first retry, 1 before the second, and so on.
 * @param random a source of numbers in `[0, 1)`.
 * @default random Math.random
 * @example
 * fullJitterDelayMs(0, { baseDelayMs: 100, maxDelayMs: 20_000 }) // somewhere in 0..100
 */
export function fullJitterDelayMs(
  retryIndex: number,
  options: BackoffOptions,
  random: () => number = Math.random,
): number {
  const capMs = backoffCapMs(retryIndex, options);
  // The min guards a `random` that returns exactly 1 (allowed by some injected sources).
  return Math.min(capMs, Math.floor(random() * (capMs + 1)));
}

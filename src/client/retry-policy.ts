import { fullJitterDelayMs } from './backoff.js';
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

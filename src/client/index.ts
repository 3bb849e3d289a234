/**
 * The caller's side: retries with full-jitter backoff, `Retry-After`, a deadline and a
 * shared retry budget, and a fetch that keeps one idempotency key across its retries.
 * Runs in browsers and Node alike: no AWS SDK, no Node built-ins.
 */
export { DEFAULT_IDEMPOTENT_FETCH_OPTIONS, idempotentFetch, type IdempotentFetchOptions } from './idempotent-fetch.js';
export { keyHeaderValue, newIdempotencyKey } from './idempotency-key.js';
export { retry } from './retry.js';
export { DEFAULT_RETRY_BUDGET_OPTIONS, RetryBudget, type RetryBudgetOptions } from './retry-budget.js';
export {
  DEFAULT_RETRY_OPTIONS,
  decideNextAttempt,
  type AttemptState,
  type RetryContext,
  type RetryDecision,
  type RetryOptions,
  type RetryPolicy,
  type RetryStop,
} from './retry-options.js';
export { isRetryableByDefault, retryAfterMsOf } from './retryable.js';

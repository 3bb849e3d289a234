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

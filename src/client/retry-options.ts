import { InvalidOptionsError } from '../core/errors.js';
import { sleepMs } from './abort.js';
import { RetryBudget } from './retry-budget.js';
import { isRetryableByDefault } from './retryable.js';
import { assertKnownOptions, readFunction, readNumber } from '../core/options.js';

/**
 * What `onRetry` receives before each wait. Frozen.
 *
 * @example
 * retry(call, { onRetry: ({ attempt, delayMs }) => logger.warn('retrying', { attempt, delayMs }) })
 */
export interface RetryContext {
  /** The attempt that just failed, 1-based. */
  readonly attempt: number;
  /** How long the client now waits before the next attempt. */
  readonly delayMs: number;
  /** Time since the first attempt started. */
  readonly elapsedMs: number;
  /** What the failed attempt threw or returned. */
  readonly errorOrResult: unknown;
}

/**
 * Options of `retry()`. Checked before the first attempt: an unknown name, a negative or NaN
 * value throws `InvalidOptionsError`.
 *
 * @example
 * const options: RetryOptions = { maxAttempts: 4, baseDelayMs: 200, deadlineMs: 10_000, budget }
 */
export interface RetryOptions {
  /** Attempts in total, the first one included; 1 disables retrying. @default 5 */
  readonly maxAttempts?: number;
  /** Ceiling of the first retry's wait; each later ceiling doubles. @default 100 */
  readonly baseDelayMs?: number;
  /** Ceiling of any backoff wait. Must be at least `baseDelayMs`. @default 20_000 */
  readonly maxDelayMs?: number;
  /**
   * Time budget measured from the start of the first attempt: no attempt starts at or after
   * it, and a wait (backoff or `Retry-After`) that would end past it ends retrying instead.
   * An attempt already running is not interrupted. `Infinity` disables it.
   * @default 30_000
   */
  readonly deadlineMs?: number;
  /**
   * Longest server-requested `Retry-After` the client will wait. A longer one ends retrying
   * (returning that response) rather than retrying earlier than the server asked.
   * @default the value of `maxDelayMs`
   */
  readonly maxRetryAfterMs?: number;
  /** Shared cap on retries across calls; see `RetryBudget`. @default no budget */
  readonly budget?: RetryBudget;
  /** Aborting rejects at once with `signal.reason`, during an attempt or a wait. @default none */
  readonly signal?: AbortSignal;
  /**
   * Decides whether an outcome (the thrown error or the returned value) deserves another
   * attempt; `attempt` is the 1-based number of the attempt that produced it.
   * @default isRetryableByDefault
   */
  readonly isRetryable?: (errorOrResult: unknown, attempt: number) => boolean | Promise<boolean>;
  /** Called before each wait, e.g. to log or to release a response body. @default none */
  readonly onRetry?: (context: RetryContext) => void | Promise<void>;
  /** Source of numbers in `[0, 1)` for the jitter. For tests and simulations. @default Math.random */
  readonly random?: () => number;
  /** Waits `delayMs`; should reject with `signal.reason` on abort. For tests. @default a setTimeout-based sleep */
  readonly sleep?: (delayMs: number, signal?: AbortSignal) => Promise<void>;
  /** Current time in epoch ms, for the deadline and HTTP-date `Retry-After`. For tests. @default Date.now */
  readonly clock?: () => number;
}

/** `RetryOptions` with every default applied, as `retry()` runs with them. */
export interface ResolvedRetryOptions extends RetryPolicy {
  readonly signal: AbortSignal | undefined;
  readonly isRetryable: (errorOrResult: unknown, attempt: number) => boolean | Promise<boolean>;
  readonly onRetry: (context: RetryContext) => void | Promise<void>;
  readonly sleep: (delayMs: number, signal?: AbortSignal) => Promise<void>;
  readonly clock: () => number;
}

/** Names `RetryOptions` accepts, for the unknown-option check. */
const RETRY_OPTION_NAMES: readonly (keyof RetryOptions)[] = [
  'maxAttempts',
  'baseDelayMs',
  'maxDelayMs',
  'deadlineMs',
  'maxRetryAfterMs',
  'budget',
  'signal',
  'isRetryable',
  'onRetry',
  'random',
  'sleep',
  'clock',
];

/** setTimeout fires at once for anything longer (2^31 − 1 ms, about 24.8 days). */
const MAX_TIMER_MS = 2_147_483_647;

const OWNER = 'retry';

/**
 * The defaults of {@link retry}'s numeric options (`maxDelayMs` is never below `baseDelayMs`,
 * and `maxRetryAfterMs` defaults to `maxDelayMs`).
 */
export const DEFAULT_RETRY_OPTIONS = Object.freeze({
  maxAttempts: 5,
  baseDelayMs: 100,
  maxDelayMs: 20_000,
  deadlineMs: 30_000,
});

/**
 * Validates `options` and fills in the defaults.
 *
 * @example
 * const resolved = resolveRetryOptions({ maxAttempts: 3 }) // resolved.baseDelayMs === 100
 */
export function resolveRetryOptions(options: RetryOptions): ResolvedRetryOptions {
  assertKnownOptions(OWNER, options, RETRY_OPTION_NAMES);
  const maxAttempts = readNumber(OWNER, 'maxAttempts', options.maxAttempts, DEFAULT_RETRY_OPTIONS.maxAttempts, {
    min: 1,
    integer: true,
    infinite: true,
  });
  const baseDelayMs = readNumber(OWNER, 'baseDelayMs', options.baseDelayMs, DEFAULT_RETRY_OPTIONS.baseDelayMs, {
    max: MAX_TIMER_MS,
  });
  const maxDelayMs = readNumber(
    OWNER,
    'maxDelayMs',
    options.maxDelayMs,
    Math.max(DEFAULT_RETRY_OPTIONS.maxDelayMs, baseDelayMs),
    {
      max: MAX_TIMER_MS,
    },
  );
  if (maxDelayMs < baseDelayMs) {
    throw new InvalidOptionsError(
      `${OWNER}: option 'maxDelayMs' (${maxDelayMs}) must be at least 'baseDelayMs' (${baseDelayMs})`,
    );
  }
  return Object.freeze({
    maxAttempts,
    baseDelayMs,
    maxDelayMs,
    deadlineMs: readNumber(OWNER, 'deadlineMs', options.deadlineMs, DEFAULT_RETRY_OPTIONS.deadlineMs, {
      infinite: true,
    }),
    maxRetryAfterMs: readNumber(OWNER, 'maxRetryAfterMs', options.maxRetryAfterMs, maxDelayMs, { max: MAX_TIMER_MS }),
    budget: readBudget(options.budget),
    signal: readSignal(options.signal),
    isRetryable: readFunction(OWNER, 'isRetryable', options.isRetryable, isRetryableByDefault),
    onRetry: readFunction(OWNER, 'onRetry', options.onRetry, () => undefined),
    random: readFunction(OWNER, 'random', options.random, Math.random),
    sleep: readFunction(OWNER, 'sleep', options.sleep, sleepMs),
    clock: readFunction(OWNER, 'clock', options.clock, Date.now),
  });
}

function readBudget(value: unknown): RetryBudget | undefined {
  if (value === undefined || value instanceof RetryBudget) return value;
  throw new InvalidOptionsError(`${OWNER}: option 'budget' must be a RetryBudget`);
}

function readSignal(value: unknown): AbortSignal | undefined {
  if (value === undefined) return undefined;
  const candidate = value as Partial<AbortSignal> | null;
  if (typeof candidate?.aborted === 'boolean' && typeof candidate.addEventListener === 'function') {
    return value as AbortSignal;
  }
  throw new InvalidOptionsError(`${OWNER}: option 'signal' must be an AbortSignal`);
}

/** The limits that decide whether, and after how long, a retryable outcome is retried. */
export interface RetryPolicy {
  /** Attempts in all, the first included. */
  readonly maxAttempts: number;
  /** Cap of the first backoff; it doubles per retry, up to `maxDelayMs`. */
  readonly baseDelayMs: number;
  /** Largest backoff before jitter. */
  readonly maxDelayMs: number;
  /** Total time after which no retry starts, from the first attempt's start. */
  readonly deadlineMs: number;
  /** A server's `Retry-After` above this stops retrying instead of waiting. */
  readonly maxRetryAfterMs: number;
  /** The retry budget every retry spends from, if any. */
  readonly budget: RetryBudget | undefined;
  /** A number in [0, 1) for the full jitter (`Math.random` unless a test seeds it). */
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

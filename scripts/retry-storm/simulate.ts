import { decideNextAttempt, RetryBudget, type RetryBudgetOptions, type RetryPolicy } from '../../src/client/index.js';
import { EventQueue } from './event-queue.js';
import { seededRandom } from './seeded-random.js';

/**
 * How the simulated clients retry:
 * - `fixed`: the same wait every time, no jitter, no budget (the naive loop);
 * - `jitter`: capped exponential backoff with full jitter, no budget;
 * - `jitter-budget`: full jitter plus one `RetryBudget` shared by all clients.
 */
export type RetryStormStrategy = 'fixed' | 'jitter' | 'jitter-budget';

/** Scenario of one simulation run. */
export interface RetryStormOptions {
  readonly strategy: RetryStormStrategy;
  /** Callers that each make one logical call. @default 1_000 */
  readonly clients?: number;
  /** From time 0, the server fails every request for this long, then succeeds. @default 4_000 */
  readonly brownoutMs?: number;
  /** Seed of the jitter and of the first attempts' spread. @default 1 */
  readonly seed?: number;
  /** Width of one counting bucket. @default 100 */
  readonly bucketMs?: number;
  /** Attempts per call, for every strategy. @default 8 */
  readonly maxAttempts?: number;
  /** Deadline per call, for every strategy. @default 30_000 */
  readonly deadlineMs?: number;
  /** The `fixed` strategy's wait. @default 1_000 */
  readonly fixedDelayMs?: number;
  /** The jitter strategies' `baseDelayMs`. @default 100 */
  readonly baseDelayMs?: number;
  /** The jitter strategies' `maxDelayMs`. @default 20_000 */
  readonly maxDelayMs?: number;
  /** The shared budget of `jitter-budget`. @default the `RetryBudget` defaults */
  readonly budget?: Omit<RetryBudgetOptions, 'clock'>;
}

/** What a run measured. Per-bucket arrays are indexed by `floor(sendTimeMs / bucketMs)`. */
export interface RetryStormResult {
  readonly strategy: RetryStormStrategy;
  readonly bucketMs: number;
  readonly firstAttemptsPerBucket: readonly number[];
  readonly retriesPerBucket: readonly number[];
  readonly requestsPerBucket: readonly number[];
  /**
   * Largest request count of any bucket after the first wave. The first wave is bucket 0,
   * `[0, bucketMs)`, where every client sends its first attempt, so it holds `clients`
   * requests whatever the strategy; "after" means every bucket from index 1 on.
   */
  readonly peakAfterFirstWave: number;
  readonly totals: {
    readonly firstAttempts: number;
    readonly retries: number;
    readonly requests: number;
    readonly succeeded: number;
    readonly failed: number;
  };
  /** Send time of the last request. */
  readonly lastRequestMs: number;
}

interface Attempt {
  readonly atMs: number;
  readonly attempt: number;
  readonly startedAtMs: number;
}

/**
 * Discrete-event simulation of `clients` callers against a server in a brownout, using the
 * library's own retry decision (`decideNextAttempt`: backoff, deadline, attempts) and its own
 * `RetryBudget`. Pure and deterministic: no I/O, no real time, seeded randomness.
 *
 * Requests are answered instantly; a request sent before `brownoutMs` fails with a retryable
 * 503 (no `Retry-After`, so the backoff alone sets the pace), any later one succeeds.
 *
 * @example
 * const run = simulateRetryStorm({ clients: 1_000, brownoutMs: 4_000, strategy: 'jitter-budget', seed: 42 })
 * run.peakAfterFirstWave // requests in the busiest 100 ms after the first wave
 */
export function simulateRetryStorm(options: RetryStormOptions): RetryStormResult {
  const clients = options.clients ?? 1_000;
  const brownoutMs = options.brownoutMs ?? 4_000;
  const bucketMs = options.bucketMs ?? 100;
  const random = seededRandom(options.seed ?? 1);
  let nowMs = 0;
  const policy = policyFor(options, random, () => nowMs);
  const queue = new EventQueue<Attempt>();
  for (let client = 0; client < clients; client++) {
    // Every first attempt inside bucket 0: a synchronised first wave, as when a fleet reconnects at once.
    const atMs = random() * bucketMs;
    queue.push({ atMs, attempt: 1, startedAtMs: atMs });
  }

  const firstAttemptsPerBucket: number[] = [];
  const retriesPerBucket: number[] = [];
  let succeeded = 0;
  for (let next = queue.pop(); next !== undefined; next = queue.pop()) {
    nowMs = next.atMs;
    const bucket = Math.floor(nowMs / bucketMs);
    if (next.attempt === 1) {
      increment(firstAttemptsPerBucket, bucket);
      policy.budget?.recordFirstAttempt();
    } else {
      increment(retriesPerBucket, bucket);
    }
    if (nowMs >= brownoutMs) {
      succeeded++;
      continue;
    }
    const decision = decideNextAttempt(policy, {
      attempt: next.attempt,
      elapsedMs: nowMs - next.startedAtMs,
      retryAfterMs: undefined,
    });
    if (decision.retry)
      queue.push({ atMs: nowMs + decision.delayMs, attempt: next.attempt + 1, startedAtMs: next.startedAtMs });
  }

  return summarise(options.strategy, bucketMs, clients, succeeded, nowMs, firstAttemptsPerBucket, retriesPerBucket);
}

function policyFor(options: RetryStormOptions, random: () => number, clock: () => number): RetryPolicy {
  // maxRetryAfterMs is moot: the simulated server never sends Retry-After.
  const shared = {
    maxAttempts: options.maxAttempts ?? 8,
    deadlineMs: options.deadlineMs ?? 30_000,
    maxRetryAfterMs: 0,
  };
  if (options.strategy === 'fixed') {
    const fixedDelayMs = options.fixedDelayMs ?? 1_000;
    // A base equal to the cap and a random that always returns 1 turn the backoff into a
    // constant wait: no growth, no jitter.
    return { ...shared, baseDelayMs: fixedDelayMs, maxDelayMs: fixedDelayMs, budget: undefined, random: () => 1 };
  }
  const budget = options.strategy === 'jitter-budget' ? new RetryBudget({ ...options.budget, clock }) : undefined;
  return {
    ...shared,
    baseDelayMs: options.baseDelayMs ?? 100,
    maxDelayMs: options.maxDelayMs ?? 20_000,
    budget,
    random,
  };
}

function summarise(
  strategy: RetryStormStrategy,
  bucketMs: number,
  clients: number,
  succeeded: number,
  lastRequestMs: number,
  firstAttemptsPerBucket: number[],
  retriesPerBucket: number[],
): RetryStormResult {
  const bucketCount = Math.max(firstAttemptsPerBucket.length, retriesPerBucket.length);
  const requestsPerBucket = Array.from(
    { length: bucketCount },
    (_, i) => (firstAttemptsPerBucket[i] ?? 0) + (retriesPerBucket[i] ?? 0),
  );
  const firstAttempts = sum(firstAttemptsPerBucket);
  const retries = sum(retriesPerBucket);
  return {
    strategy,
    bucketMs,
    firstAttemptsPerBucket: dense(firstAttemptsPerBucket, bucketCount),
    retriesPerBucket: dense(retriesPerBucket, bucketCount),
    requestsPerBucket,
    peakAfterFirstWave: Math.max(0, ...requestsPerBucket.slice(1)),
    totals: { firstAttempts, retries, requests: firstAttempts + retries, succeeded, failed: clients - succeeded },
    lastRequestMs,
  };
}

function increment(counts: number[], index: number): void {
  counts[index] = (counts[index] ?? 0) + 1;
}

function dense(counts: readonly number[], length: number): number[] {
  return Array.from({ length }, (_, i) => counts[i] ?? 0);
}

function sum(counts: readonly number[]): number {
  return counts.reduce((total, count) => total + (count ?? 0), 0);
}

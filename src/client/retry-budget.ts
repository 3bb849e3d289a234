import { assertKnownOptions, readFunction, readNumber } from '../core/options.js';

/**
 * The defaults of {@link RetryBudget}'s options: retries up to 10% of first attempts, plus 10 per second, over 10 s.
 */
export const DEFAULT_RETRY_BUDGET_OPTIONS = Object.freeze({ ratio: 0.1, minPerSecond: 10, windowMs: 10_000 });

/**
 * Options of {@link RetryBudget}.
 *
 * @example
 * const options: RetryBudgetOptions = { ratio: 0.2, minPerSecond: 5, windowMs: 30_000 }
 */
export interface RetryBudgetOptions {
  /**
   * Retries allowed per first attempt in the window: 0.1 lets retries add at most 10 % load.
   * @default 0.1
   */
  readonly ratio?: number;
  /**
   * Retries per second always allowed, so a caller with little traffic can still retry.
   * @default 10
   */
  readonly minPerSecond?: number;
  /**
   * Length of the sliding window over which attempts are counted.
   * @default 10_000
   */
  readonly windowMs?: number;
  /**
   * Current time in epoch ms. For tests and simulations.
   * @default Date.now
   */
  readonly clock?: () => number;
}

const OPTION_NAMES = ['ratio', 'minPerSecond', 'windowMs', 'clock'] as const;

/** The window is kept as this many slots; older slots are recycled as time moves on. */
const SLOT_COUNT = 10;

/**
 * Caps retries to a share of first attempts, so that during an outage retries cannot multiply
 * the load on a struggling server (a retry storm): at most `ratio × first attempts +
 * minPerSecond × window seconds` retries in any window. A denied retry ends that call with
 * its last result.
 *
 * Share one budget among all calls to the same downstream service; a budget per call would
 * never run out.
 *
 * @example
 * const paymentsBudget = new RetryBudget({ ratio: 0.1, minPerSecond: 10 })
 * await idempotentFetch(url, init, { retry: { budget: paymentsBudget } })
 */
export class RetryBudget {
  /** Retries allowed per first attempt in the window. */
  readonly ratio: number;
  /** Retries per second allowed regardless of traffic. */
  readonly minPerSecond: number;
  /** Length of the sliding window. */
  readonly windowMs: number;

  readonly #clock: () => number;
  readonly #slotMs: number;
  readonly #slotIds = new Array<number>(SLOT_COUNT).fill(Number.NEGATIVE_INFINITY);
  readonly #firstAttempts = new Array<number>(SLOT_COUNT).fill(0);
  readonly #retries = new Array<number>(SLOT_COUNT).fill(0);

  constructor(options: RetryBudgetOptions = {}) {
    assertKnownOptions('RetryBudget', options, OPTION_NAMES);
    const defaults = DEFAULT_RETRY_BUDGET_OPTIONS;
    this.ratio = readNumber('RetryBudget', 'ratio', options.ratio, defaults.ratio);
    this.minPerSecond = readNumber('RetryBudget', 'minPerSecond', options.minPerSecond, defaults.minPerSecond);
    this.windowMs = readNumber('RetryBudget', 'windowMs', options.windowMs, defaults.windowMs, { min: 1 });
    this.#clock = readFunction('RetryBudget', 'clock', options.clock, Date.now);
    this.#slotMs = this.windowMs / SLOT_COUNT;
  }

  /** Counts one first attempt, which earns `ratio` retries. `retry()` calls it once per call. */
  recordFirstAttempt(): void {
    const slotId = this.#slotIdNow();
    this.#firstAttempts[this.#claimSlot(slotId)]! += 1;
  }

  /**
   * Takes one retry from the budget if the window allows it; false means "do not retry".
   * `retry()` calls it once before each retry.
   */
  tryAcquireRetry(): boolean {
    const slotId = this.#slotIdNow();
    const index = this.#claimSlot(slotId);
    const allowed = this.ratio * this.#sum(this.#firstAttempts, slotId) + (this.minPerSecond * this.windowMs) / 1000;
    if (this.#sum(this.#retries, slotId) + 1 > allowed) return false;
    this.#retries[index]! += 1;
    return true;
  }

  #slotIdNow(): number {
    return Math.floor(this.#clock() / this.#slotMs);
  }

  /** Ring index of `slotId`, cleared first if it still holds counts from a window ago. */
  #claimSlot(slotId: number): number {
    const index = ((slotId % SLOT_COUNT) + SLOT_COUNT) % SLOT_COUNT;
    if (this.#slotIds[index] !== slotId) {
      this.#slotIds[index] = slotId;
      this.#firstAttempts[index] = 0;
      this.#retries[index] = 0;
    }
    return index;
  }

  /** Total of `counts` over the slots inside the window that ends with `newestSlotId`. */
  #sum(counts: readonly number[], newestSlotId: number): number {
    let total = 0;
    for (let index = 0; index < SLOT_COUNT; index++) {
      if (this.#slotIds[index]! > newestSlotId - SLOT_COUNT) total += counts[index]!;
    }
    return total;
  }
}

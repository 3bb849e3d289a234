/** A clock that only moves when told to, and a sleep that moves it instead of waiting. */
export interface FakeTime {
  readonly clock: () => number;
  readonly sleep: (delayMs: number) => Promise<void>;
  readonly advance: (ms: number) => void;
  /** Every wait requested through `sleep`, in order. */
  readonly delaysMs: number[];
}

/**
 * Virtual time for `retry()` tests: `sleep` records the wait and advances the clock at once,
 * so a test observes the exact backoff without waiting for it.
 *
 * @example
 * const time = fakeTime(); await retry(fn, { clock: time.clock, sleep: time.sleep }); time.delaysMs
 */
export function fakeTime(startMs = Date.UTC(2025, 0, 1)): FakeTime {
  let nowMs = startMs;
  const delaysMs: number[] = [];
  return {
    clock: () => nowMs,
    sleep: async (delayMs: number) => {
      delaysMs.push(delayMs);
      nowMs += delayMs;
    },
    advance: (ms: number) => {
      nowMs += ms;
    },
    delaysMs,
  };
}

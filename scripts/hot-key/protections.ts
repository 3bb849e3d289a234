import { LEASE_MEMORY_MS } from '../../src/engine/lease-memory.js';
import { throttledAttemptsOf } from '../../src/journal/throttled-retries.js';

/**
 * SDK attempts a throttled journal call is given, by what it is for: the reservation (and the
 * read of `'read-first'`, made inside it) before the handler runs, the completion that settles
 * what it produced.
 */
export interface BoundedSdkAttempts {
  readonly reserve: number;
  readonly complete: number;
}

/**
 * Which of issue 38's protections a simulated guard has. Each scenario adds one to the one
 * before, so the difference between neighbours is what that protection buys.
 */
export interface Protections {
  /**
   * Journal calls send at most this many attempts on a throttle, and a throttle answers 429
   * `journal-throttled` with a jittered whole-second `Retry-After`, one draw per journal call
   * (the callers that shared it get the same). Without it: the SDK's own 4 attempts, and a
   * throttle answers 503 `journal-unavailable` with `Retry-After: 1`.
   */
  readonly boundedSdkAttempts?: BoundedSdkAttempts;
  /** Concurrent attempts of the key in one container share one journal call and its answer. */
  readonly singleFlight: boolean;
  /**
   * A live lease seen once answers 409 from memory, without a call, until it may have ended
   * (its `leaseUntil`), or for at most `maxMs` after it was seen.
   */
  readonly leaseMemory?: { readonly maxMs?: number };
  /** A completed outcome is replayed from a cache every container shares, without a journal call. */
  readonly sharedOutcomeCache: boolean;
}

/** A named set of protections, as the table and the plot show it. */
export interface Scenario {
  /** '0' to '4': how many protections it adds up ('3b': the memory held briefly). */
  readonly id: string;
  readonly label: string;
  readonly protections: Protections;
}

/**
 * How long scenario 3b remembers a live lease: the guard's own `LEASE_MEMORY_MS` (1 s, the
 * 409's `Retry-After`), so each container asks the journal again about once per retry wave
 * instead of refusing until the lease ends.
 */
export const BRIEF_LEASE_MEMORY_MS = LEASE_MEMORY_MS;

/**
 * The bounds the journal ships (`throttledAttemptsOf`, src/journal/throttled-retries.ts): one
 * attempt for the reservation, the first send and one SDK retry for the completion.
 */
export const SHIPPED_BOUNDED_SDK_ATTEMPTS: BoundedSdkAttempts = Object.freeze({
  reserve: throttledAttemptsOf('reserve'),
  complete: throttledAttemptsOf('complete'),
});

/**
 * The scenarios of issue 38 item 4, each one protection more than the last; 3b is 3 with the
 * memory held for at most a second, to show what holding it for the whole lease costs callers.
 * 3b is the guard 0.2 ships; 4 adds to it the shared outcome cache 0.2 uses when given one.
 *
 * @example
 * scenarios().map((scenario) => scenario.id) // ['0', '1', '2', '3', '3b', '4']
 */
export function scenarios(boundedSdkAttempts = SHIPPED_BOUNDED_SDK_ATTEMPTS): readonly Scenario[] {
  const none: Protections = { singleFlight: false, sharedOutcomeCache: false };
  const bounded: Protections = { ...none, boundedSdkAttempts };
  const flight: Protections = { ...bounded, singleFlight: true };
  const memory: Protections = { ...flight, leaseMemory: {} };
  const briefMemory: Protections = { ...flight, leaseMemory: { maxMs: BRIEF_LEASE_MEMORY_MS } };
  const cache: Protections = { ...briefMemory, sharedOutcomeCache: true };
  return [
    { id: '0', label: '0 no protection (0.1)', protections: none },
    { id: '1', label: '1 + bounded SDK retries, 429', protections: bounded },
    { id: '2', label: '2 + single-flight', protections: flight },
    { id: '3', label: '3 + live-lease memory', protections: memory },
    { id: '3b', label: '3b + live-lease memory ≤ 1 s (0.2)', protections: briefMemory },
    { id: '4', label: '4 = 3b + shared outcome cache', protections: cache },
  ];
}

import fc from 'fast-check';

/** Lease of every attempt, in the virtual milliseconds of the injected clock. */
export const LEASE_MS = 1_000;
/** Keys an attempt can use: few, so attempts collide. */
export const KEY_COUNT = 3;

/** What the handler answers once it goes on: a stored 2xx or 4xx, a released 5xx, or a throw. */
export type PlannedOutcome = 201 | 400 | 503 | 'throw';
/** When the handler calls `beginEffect`: never, before it stalls, or after it resumes. */
export type EffectTiming = 'none' | 'before-stall' | 'after-stall';
/** What a recover hook decides for a record whose effect may have happened (`none`: no hook). */
export type RecoverPolicy = 'none' | 'rerun' | 'completed' | 'review';

/** One delivery attempt: its key, its request body (two variants: same key, other payload), and its handler's behaviour. */
export interface AttemptPlan {
  readonly key: number;
  readonly variant: 0 | 1;
  readonly outcome: PlannedOutcome;
  readonly effect: EffectTiming;
}

/**
 * One step of a schedule:
 * - `start`: attempts delivered together (their journal calls interleave as the scheduler decides);
 *   each one runs until its handler stalls, or until it is answered;
 * - `resume`: a stalled handler goes on (after any `advance`, that is a stall past its lease);
 * - `crash`: a stalled handler's process dies: it never goes on, its record stays as it is;
 * - `advance`: the clock moves on, so leases expire.
 */
export type Command =
  | { readonly kind: 'start'; readonly attempts: readonly AttemptPlan[] }
  | { readonly kind: 'resume'; readonly pick: number }
  | { readonly kind: 'crash'; readonly pick: number }
  | { readonly kind: 'advance'; readonly ms: number };

/** A random schedule of attempts and lease expiries, under one recover policy. */
export interface Schedule {
  readonly recover: RecoverPolicy;
  readonly commands: readonly Command[];
}

const attemptPlan: fc.Arbitrary<AttemptPlan> = fc.record({
  key: fc.nat({ max: KEY_COUNT - 1 }),
  variant: fc.oneof(
    { weight: 5, arbitrary: fc.constant(0 as const) },
    { weight: 1, arbitrary: fc.constant(1 as const) },
  ),
  outcome: fc.constantFrom<PlannedOutcome>(201, 400, 503, 'throw'),
  effect: fc.constantFrom<EffectTiming>('none', 'before-stall', 'after-stall'),
});

const command: fc.Arbitrary<Command> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('start' as const),
      attempts: fc.array(attemptPlan, { minLength: 1, maxLength: 3 }),
    }),
  },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('resume' as const), pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('crash' as const), pick: fc.nat() }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('advance' as const),
      ms: fc.oneof(fc.integer({ min: 0, max: LEASE_MS - 1 }), fc.integer({ min: LEASE_MS, max: 2 * LEASE_MS + 500 })),
    }),
  },
);

/** Schedules of up to `maxCommands` steps. */
export function schedules(maxCommands: number): fc.Arbitrary<Schedule> {
  return fc.record({
    recover: fc.constantFrom<RecoverPolicy>('none', 'rerun', 'completed', 'review'),
    commands: fc.array(command, { minLength: 1, maxLength: maxCommands }),
  });
}

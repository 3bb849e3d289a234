import type { DecisionKind } from './decision.js';

/**
 * What an attempt does about a record found in its way, stated once for every place it meets one.
 * `decide()` (decision.ts) says what the record means; {@link ATTEMPT_ACTIONS} says what the attempt does
 * about it in each {@link AttemptPhase}, and the executor (attempt-executor.ts) carries the action out. The
 * table is pure data: it reads no clock and calls nothing, and a test writes it out on its own.
 */

/**
 * Where the attempt meets the record:
 * - `admission`: before the handler runs; the attempt may still write (take over, mark `UNKNOWN`)
 *   and may read again (a race, a poll);
 * - `commit`: a staged-only commit found the key taken after the handler ran: the handler's
 *   writes were not committed, and the record found answers instead;
 * - `lease-lost`: a fenced write of the attempt lost its lease (counted once, as `leaseLost`): the
 *   attempt answers with what the record now says and writes nothing more.
 */
export type AttemptPhase = 'admission' | 'commit' | 'lease-lost';

/** Every phase, in the order an attempt can meet them. */
export const ATTEMPT_PHASES: readonly AttemptPhase[] = ['admission', 'commit', 'lease-lost'];

/**
 * Why an attempt is refused: `mismatch` (422, `PayloadMismatchError`), `in-progress` (409,
 * `InProgressError`), `needs-review` (`NeedsReviewError`, for an operator), `unreadable`
 * (`RecordUnreadableError`, the record left untouched).
 */
export type Refusal = 'mismatch' | 'in-progress' | 'needs-review' | 'unreadable';

/**
 * What the attempt does. `counted` says whether the attempt's log line and metrics count what it
 * met: after a lost lease only an unreadable record is counted (the lost lease already was).
 */
export type AttemptAction =
  /** The key is free again (released, expired) since the write that was refused: reserve again, as a race. */
  | { readonly kind: 'reserve-again' }
  /**
   * A live lease holds the key: read again until it settles or the wait is over (at once unless
   * `inProgress: 'wait'`), then answer 409.
   */
  | { readonly kind: 'wait' }
  /** The durable execution this attempt belongs to holds the record: run the handler under its lease. */
  | { readonly kind: 'resume' }
  /** The lease ended before any effect: take the record over under a new token and run the handler. */
  | { readonly kind: 'take-over' }
  /** An effect may have happened: take the record over under a new token and let the `recover` hook decide. */
  | { readonly kind: 'recover' }
  /** The stored outcome answers, counted as a replay (a queue's suppressed duplicate), kept in the local cache. */
  | { readonly kind: 'replay' }
  /** Another attempt's stored outcome answers instead of this attempt's own (and is kept in the local cache). */
  | { readonly kind: 'supersede'; readonly counted: boolean }
  /**
   * Only an operator may decide: a record still `IN_PROGRESS` is marked `UNKNOWN` first, fenced on
   * the token read (counted `markedUnknown`; one already `UNKNOWN` is counted `foundUnknown`), then
   * `NeedsReviewError` answers. When the mark finds the record changed, `whenRaced` says what follows:
   * read it again and decide anew, or refuse as found (counted `foundUnknown`).
   */
  | { readonly kind: 'mark-for-review'; readonly whenRaced: 'read-again' | 'refuse' }
  /** The attempt is refused with the typed error of `refusal`; nothing is written. */
  | { readonly kind: 'refuse'; readonly refusal: Refusal; readonly counted: boolean };

/** The action of kind `K`. */
export type ActionOf<K extends AttemptAction['kind']> = Extract<AttemptAction, { readonly kind: K }>;

const refuse = (refusal: Refusal, counted: boolean): AttemptAction => ({ kind: 'refuse', refusal, counted });
/** Anything that holds the key, met after the handler ran: the attempt cannot run again, so it answers 409. */
const heldAfterRun = (phase: 'commit' | 'lease-lost') => refuse('in-progress', phase === 'commit');

/**
 * The one table from (decision, phase) to action. In the `commit` phase a staged-only commit never
 * meets `claimable` (it commits again), `resume`, `take-over` or `recover` (decided in staged-only
 * mode, without a hook or a durable execution); the table still answers for them, as anything that
 * holds the key after the handler ran: 409.
 *
 * @example ATTEMPT_ACTIONS['in-progress'].admission // { kind: 'wait' }
 */
export const ATTEMPT_ACTIONS: {
  readonly [K in DecisionKind]: { readonly [P in AttemptPhase]: AttemptAction };
} = Object.freeze({
  claimable: {
    admission: { kind: 'reserve-again' },
    commit: heldAfterRun('commit'),
    'lease-lost': heldAfterRun('lease-lost'),
  },
  replay: {
    admission: { kind: 'replay' },
    commit: { kind: 'supersede', counted: true },
    'lease-lost': { kind: 'supersede', counted: false },
  },
  // Another request under the key is 422 whatever the record's state.
  mismatch: {
    admission: refuse('mismatch', true),
    commit: refuse('mismatch', true),
    'lease-lost': refuse('mismatch', false),
  },
  'in-progress': {
    admission: { kind: 'wait' },
    commit: heldAfterRun('commit'),
    'lease-lost': heldAfterRun('lease-lost'),
  },
  resume: {
    admission: { kind: 'resume' },
    commit: heldAfterRun('commit'),
    'lease-lost': heldAfterRun('lease-lost'),
  },
  'take-over': {
    admission: { kind: 'take-over' },
    commit: heldAfterRun('commit'),
    'lease-lost': heldAfterRun('lease-lost'),
  },
  recover: {
    admission: { kind: 'recover' },
    commit: heldAfterRun('commit'),
    'lease-lost': heldAfterRun('lease-lost'),
  },
  review: {
    admission: { kind: 'mark-for-review', whenRaced: 'read-again' },
    // The handler ran and its writes were not committed: a record changed under the mark answers as found.
    commit: { kind: 'mark-for-review', whenRaced: 'refuse' },
    // The attempt that took over owns the record now: it is answered as it is, never marked.
    'lease-lost': refuse('needs-review', false),
  },
  // Refused and left untouched in every phase, and always counted: an operator must hear of it.
  unreadable: {
    admission: refuse('unreadable', true),
    commit: refuse('unreadable', true),
    'lease-lost': refuse('unreadable', true),
  },
});

/**
 * The action for a decision of `kind` met in `phase`.
 *
 * @example actionFor('replay', 'lease-lost') // { kind: 'supersede', counted: false }
 */
export function actionFor(kind: DecisionKind, phase: AttemptPhase): AttemptAction {
  return ATTEMPT_ACTIONS[kind][phase];
}

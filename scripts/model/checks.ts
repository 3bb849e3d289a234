import type { SpinCheck } from './spin.js';

/**
 * The configuration every safety property is checked in: three leased attempts, one staged-only
 * attempt, an operator, TTL, time, and a recover hook present or absent (the model picks both).
 * An attempt that loses a race ends there (`MAXRACES=0`): reading the record again and deciding
 * anew is exactly what a new attempt does, so the other attempts stand for that retry.
 */
const SAFETY_CONFIG = ['-DNLEASED=3', '-DNSTAGED=1', '-DMAXRACES=0'];
/** The configuration of a journal on an MRSC global table: no TTL but a sweeper, no staged-only attempts. */
const MULTI_REGION_CONFIG = ['-DNLEASED=3', '-DNSTAGED=0', '-DMAXRACES=0', '-DMULTI_REGION'];
/**
 * Held uniqueness claims: two leased attempts of the key that may hold the claim (enough for a
 * recovery, a takeover and the key reused as new work), another key's attempt that wants the same
 * value, the operator, time, and TTL (single-Region) or the sweeper (`-DMULTI_REGION`). A third
 * leased attempt makes the search outgrow the machine's memory.
 */
const HOLDS_CONFIG = ['-DNLEASED=2', '-DNSTAGED=0', '-DMAXRACES=0', '-DHOLDS'];
/** Safety: assertions and invalid end states, exhaustive. */
const SAFETY_BUILD = ['-DSAFETY'];
const SAFETY_SEARCH = ['-m100000', '-w25'];

/**
 * The liveness configuration: two leased attempts that wait (`inProgress: 'wait'`), re-decide after a
 * lost race and may crash at any step, and one staged-only attempt. Searching for fair cycles costs
 * far more per state, so it runs without the operator, whose single conditional write never waits.
 */
const LIVENESS_CONFIG = [
  '-DLIVENESS',
  '-DCRASHES',
  '-DWAIT',
  '-DMAXRACES=1',
  '-DNLEASED=2',
  '-DNSTAGED=1',
  '-DNOOPERATOR',
];

/** A property of the protocol, what it means for a user, and how spin checks it. */
export interface PropertyCheck extends SpinCheck {
  readonly meaning: string;
}

/** Every property `npm run verify:model` proves; each must end with `errors: 0` over a complete search. */
export const PROPERTIES: readonly PropertyCheck[] = [
  {
    name: 'single-effect',
    meaning:
      'an external effect runs at most once per logical operation unless a recover hook or an operator decided to rerun it; staged writes commit at most once',
    defines: [...SAFETY_CONFIG, '-DCHECK_EFFECT'],
    panBuild: SAFETY_BUILD,
    panArgs: SAFETY_SEARCH,
  },
  {
    name: 'fencing',
    meaning: 'no write of an attempt whose record was taken over, released, resolved, replaced or deleted ever lands',
    defines: [...SAFETY_CONFIG, '-DCHECK_FENCE'],
    panBuild: SAFETY_BUILD,
    panArgs: SAFETY_SEARCH,
  },
  {
    name: 'completed-kept',
    meaning: 'a completed outcome is never overwritten or deleted before its expiresAt',
    defines: [...SAFETY_CONFIG, '-DCHECK_KEEP'],
    panBuild: SAFETY_BUILD,
    panArgs: SAFETY_SEARCH,
  },
  {
    name: 'unknown-never-expires',
    meaning:
      'an UNKNOWN record, or one whose effect began and has no outcome, has no expiresAt and leaves only by its owner or an operator: no TTL, reservation or staged-only commit removes it',
    defines: [...SAFETY_CONFIG, '-DCHECK_UNKNOWN'],
    panBuild: SAFETY_BUILD,
    panArgs: SAFETY_SEARCH,
  },
  {
    name: 'recover-only-after-effect',
    meaning:
      'the recover hook is asked only about a record whose effect may have happened, never about another operation',
    defines: [...SAFETY_CONFIG, '-DCHECK_RECOVER'],
    panBuild: SAFETY_BUILD,
    panArgs: SAFETY_SEARCH,
  },
  {
    name: 'staged-only-no-409',
    meaning:
      'a staged-only attempt answers 409 only for a record a leased attempt holds: between staged-only duplicates, one commits and the others replay it',
    defines: [...SAFETY_CONFIG, '-DCHECK_STAGED'],
    panBuild: SAFETY_BUILD,
    panArgs: SAFETY_SEARCH,
  },
  {
    name: 'multi-region',
    meaning:
      'on an MRSC journal (no TTL, a sweeper deleting at any time, no staged-only attempts): every safety property above at once',
    defines: [...MULTI_REGION_CONFIG, '-DCHECK_ALL'],
    panBuild: SAFETY_BUILD,
    panArgs: SAFETY_SEARCH,
  },
  {
    name: 'lease-respected',
    meaning:
      'on an MRSC journal: no attempt starts the handler while another attempt still holds a live lease on the key — the sweeper never removes a record under a live lease, even one past its expiresAt',
    defines: [...MULTI_REGION_CONFIG, '-DCHECK_LEASE'],
    panBuild: SAFETY_BUILD,
    panArgs: SAFETY_SEARCH,
  },
  {
    name: 'hold-kept',
    meaning:
      'on an MRSC journal with held uniqueness claims (the write after the completion may be lost, the sweeper deletes at any time): a claim whose operation began its effect or completed is never taken by another key, nor by the same key reused as new work; every safety property above holds with it',
    defines: [...HOLDS_CONFIG, '-DMULTI_REGION', '-DCHECK_ALL'],
    panBuild: SAFETY_BUILD,
    panArgs: SAFETY_SEARCH,
  },
  {
    name: 'hold-kept-single-region',
    meaning:
      'the same on a single-Region journal (TTL deleting at any time, the completion one transaction), through recoveries and operator resolutions',
    defines: [...HOLDS_CONFIG, '-DCHECK_ALL'],
    panBuild: SAFETY_BUILD,
    panArgs: SAFETY_SEARCH,
  },
  {
    name: 'every-attempt-answers',
    meaning:
      'under weak fairness (every attempt that can take a step eventually does, and time passes), every attempt that does not crash gets an answer',
    defines: LIVENESS_CONFIG,
    panBuild: ['-DNFAIR=3'],
    panArgs: ['-a', '-f', '-N', 'answered', '-m100000'],
  },
];

/** A guard dropped (or a known bug added) that the properties must catch. */
export interface MutantCheck extends SpinCheck {
  readonly switch: string;
  readonly meaning: string;
}

const mutant = (name: string, define: string, meaning: string): MutantCheck => ({
  name,
  switch: define,
  meaning,
  defines: [...SAFETY_CONFIG, '-DCHECK_ALL', `-D${define}`],
  panBuild: SAFETY_BUILD,
  panArgs: SAFETY_SEARCH,
});

/** A mutant of the multi-Region journal, checked against every property in that configuration. */
const multiRegionMutant = (name: string, define: string, meaning: string): MutantCheck => ({
  name,
  switch: define,
  meaning,
  defines: [...MULTI_REGION_CONFIG, '-DCHECK_ALL', `-D${define}`],
  panBuild: SAFETY_BUILD,
  panArgs: SAFETY_SEARCH,
});

/** A mutant of held uniqueness claims, checked against every property in the holds configuration. */
const holdsMutant = (name: string, define: string, meaning: string, configuration: readonly string[]): MutantCheck => ({
  name,
  switch: define,
  meaning,
  defines: [...HOLDS_CONFIG, ...configuration, '-DCHECK_ALL', `-D${define}`],
  panBuild: SAFETY_BUILD,
  panArgs: SAFETY_SEARCH,
});

/** Each mutant must produce a counterexample. */
export const MUTANTS: readonly MutantCheck[] = [
  mutant(
    'completion-unfenced',
    'MUT_COMPLETE_UNFENCED',
    'the completion without its token condition (`#status <> :completed` alone)',
  ),
  mutant(
    'reservation-unconditional',
    'MUT_RESERVE_UNCONDITIONAL',
    'the reservation without its condition (a plain PutItem)',
  ),
  mutant('takeover-without-token', 'MUT_TAKEOVER_NO_TOKEN', 'the takeover without `leaseToken = :old`'),
  mutant(
    'powertools-delete-on-reject',
    'MUT_DELETE_ON_REJECT',
    'Powertools TS 2.35: a duplicate rejected as in progress deletes the record it never acquired',
  ),
  mutant(
    'takeover-trusts-read',
    'MUT_TAKEOVER_TRUSTS_READ',
    'the engine before its fix: a takeover decided on a read without effect runs the handler even when the record taken says an effect began',
  ),
  multiRegionMutant(
    'sweeper-ignores-lease',
    'MUT_SWEEP_IGNORES_LEASE',
    'the sweeper without its live-lease check (`expiresAt <= :nowSeconds AND NOT (#status = :unknown)` alone)',
  ),
  holdsMutant(
    'hold-takeover-ignores-pin',
    'MUT_HOLD_TAKEOVER_IGNORES_PIN',
    'the takeover of a stale hold without `attribute_not_exists(pinned)` (`holdToken = :token` alone)',
    ['-DMULTI_REGION'],
  ),
  holdsMutant(
    'hold-retake-any-operation',
    'MUT_HOLD_RETAKE_ANY_OPERATION',
    'holdUnique taking a hold back for any record of the same key (`uniqueHoldable` without `ownerCreatedAt`)',
    ['-DMULTI_REGION'],
  ),
  holdsMutant(
    'hold-effect-unpinned',
    'MUT_HOLD_EFFECT_UNPINNED',
    'beginEffect() without pinning the held claims first (the single-Region completion transaction alone makes them permanent)',
    [],
  ),
];

/** What the protocol does not promise, shown by the counterexamples spin finds for it. */
export const LIMITS: readonly (SpinCheck & { readonly meaning: string })[] = [
  {
    name: 'answers-need-fairness',
    meaning: 'without fairness an attempt waiting on a live lease polls forever while time stands still',
    defines: ['-DLIVENESS', '-DCRASHES', '-DWAIT', '-DNLEASED=2', '-DNSTAGED=0', '-DNOOPERATOR'],
    panBuild: [],
    panArgs: ['-a', '-N', 'answered', '-m100000'],
  },
  {
    name: 'unknown-waits-for-operator',
    meaning:
      'without an operator (or a recover hook) an UNKNOWN record stays UNKNOWN forever, even under weak fairness',
    defines: ['-DLIVENESS', '-DNLEASED=2', '-DNSTAGED=0', '-DNOOPERATOR'],
    panBuild: ['-DNFAIR=3'],
    panArgs: ['-a', '-f', '-N', 'resolved', '-m100000'],
  },
];

import { randomUUID } from 'node:crypto';
import { LeaseLostError } from '../../core/index.js';
import type { Journal, JournalRecord, UniqueClaim, UniqueHold } from '../journal.js';
import { assertSame, refusedWith, succeeds } from './conformance-check.js';

/**
 * One case of the conformance suite and the world it runs in: a journal built for the case, a
 * clock the case moves by hand (leases end and records expire without sleeping), fresh keys, and
 * the few steps most cases start from (a held record, an orphaned one, one taken over).
 */

/** The lease every case's attempt takes, in milliseconds. */
export const LEASE_MS = 1_000;
/** The retention every case's record takes, in seconds. */
export const TTL_SECONDS = 3_600;
/** The fingerprint of the request most cases send. */
export const FINGERPRINT = 'fp-conformance-1';

/** The clock of one case: epoch milliseconds, moved only by the case. */
export interface CaseClock {
  /** Epoch milliseconds now: what the journal's `clock` option returns. */
  readonly now: () => number;
  /** Moves time forward, to end a lease or pass an expiry. */
  advanceMs(ms: number): void;
}

/** What a case is given. */
export interface CaseContext {
  /** The journal built for this case by `createJournal`, reading {@link clock}. */
  readonly journal: Journal;
  readonly clock: CaseClock;
  /**
   * `count` journals of one store for a race: separate journals from `createJournal` when they share
   * storage (two containers on one table), else this case's journal `count` times.
   */
  contenders(count: number): Promise<readonly Journal[]>;
  /** A record key no other case or run uses (`req#idemkit-conformance#<label>#<random>`). */
  key(label: string): string;
  /** A uniqueness claim no other case or run uses. */
  claim(label: string): UniqueClaim;
}

/** One behaviour of the `Journal` contract, checked on fresh journals. */
export interface ConformanceCase {
  /** The behaviour, as a sentence: the test's name. */
  readonly name: string;
  run(context: CaseContext): Promise<void>;
}

/** How far ahead of the real time a case clock starts. */
const CLOCK_AHEAD_MS = 24 * 3_600 * 1_000;

/**
 * A case clock starting a day ahead of the real time, half a second into a second: a journal that
 * reads the real time instead is caught by the first lease it writes, and records written to a real
 * store never look expired to its TTL.
 */
export function caseClock(): CaseClock {
  let nowEpochMs = (Math.floor(Date.now() / 1000) + CLOCK_AHEAD_MS / 1000) * 1000 + 500;
  return {
    now: () => nowEpochMs,
    advanceMs(ms: number) {
      nowEpochMs += ms;
    },
  };
}

/** A fresh key under `label`. */
export function freshKey(label: string): string {
  return `req#idemkit-conformance#${label}#${randomUUID()}`;
}

/** A fresh uniqueness claim under `label`. */
export function freshClaim(label: string): UniqueClaim {
  return { name: `idemkit-conformance-${label}`, value: randomUUID() };
}

/** An attempt holding a record: its key, its lease token and the record reserve returned. */
export interface Held {
  readonly pk: string;
  readonly token: string;
  readonly record: JournalRecord;
}

/** Reserves a fresh key (with {@link LEASE_MS} and {@link TTL_SECONDS}, unless told otherwise) and returns the holder. */
export async function holdNew(
  context: CaseContext,
  label: string,
  request: { leaseMs?: number; ttlSeconds?: number; fingerprint?: string } = {},
): Promise<Held> {
  const pk = context.key(label);
  const call = `reserve() of a new key`;
  const result = await succeeds(
    call,
    context.journal.reserve({
      pk,
      fingerprint: request.fingerprint ?? FINGERPRINT,
      leaseMs: request.leaseMs ?? LEASE_MS,
      ttlSeconds: request.ttlSeconds ?? TTL_SECONDS,
    }),
  );
  assertSame(call, 'reserved', result.reserved, true);
  return { pk, token: result.record.leaseToken, record: result.record };
}

/** Ends the lease of every attempt reserved so far with {@link LEASE_MS}. */
export function endLeases(context: CaseContext): void {
  context.clock.advanceMs(LEASE_MS + 1);
}

/** A record whose first attempt vanished (`staleToken`) and was taken over by a second, holding `token`. */
export interface TakenOver extends Held {
  readonly staleToken: string;
}

/** Reserves a fresh key, ends its lease and takes it over: the first attempt's token is then stale. */
export async function takenOver(context: CaseContext, label: string): Promise<TakenOver> {
  const first = await holdNew(context, label);
  endLeases(context);
  const record = await succeeds(
    'takeOver() of a lease that ended',
    context.journal.takeOver({ pk: first.pk, expectedToken: first.token, leaseMs: LEASE_MS }),
  );
  return { pk: first.pk, token: record.leaseToken, record, staleToken: first.token };
}

/** Completes the record `held` holds with `response`, checking it landed. */
export async function completeHeld(
  context: CaseContext,
  held: Held,
  response: unknown,
  ttlSeconds = TTL_SECONDS,
): Promise<void> {
  await succeeds(
    'complete() by the lease holder',
    context.journal.complete({ pk: held.pk, leaseToken: held.token, response, ttlSeconds }),
  );
}

/** The record stored under `pk`, read with `get()`. */
export async function stored(context: CaseContext, pk: string): Promise<JournalRecord | undefined> {
  return succeeds('get()', context.journal.get(pk));
}

/** The hold of `claim` by the attempt `held`. */
export function holdOf(held: Held, claim: UniqueClaim): UniqueHold {
  return { claim, ownerPk: held.pk, ownerCreatedAtEpochMs: held.record.createdAtEpochMs, leaseToken: held.token };
}

/**
 * Fails unless the record under `pk` is still exactly `before`: a refused write must change
 * nothing (no new token, status, lease, evidence, response or `updatedAt`).
 */
export async function assertUnchanged(context: CaseContext, call: string, pk: string, before: unknown): Promise<void> {
  assertSame(`${call}, then get()`, 'the record (a refused write changes nothing)', await stored(context, pk), before);
}

/**
 * Fails unless `write`, made with the token of the attempt `taken` fenced out, is refused with
 * `LeaseLostError` carrying the current holder's token and leaves the record exactly `before`.
 */
export async function assertFencedOut(
  context: CaseContext,
  call: string,
  write: Promise<unknown>,
  taken: TakenOver,
  before: unknown,
): Promise<void> {
  const lost = await refusedWith(call, write, LeaseLostError);
  assertSame(call, 'LeaseLostError.existing.leaseToken (the current holder’s)', lost.existing?.leaseToken, taken.token);
  await assertUnchanged(context, call, taken.pk, before);
}

import { LeaseLostError, UniqueConflictError } from '../../core/index.js';
import type { UniqueClaim, UniqueHold } from '../journal.js';
import { ClaimAttribute } from '../schema.js';
import { assertSame, refusedWith, succeeds } from './conformance-check.js';
import {
  endLeases,
  holdNew,
  holdOf,
  LEASE_MS,
  takenOver,
  TTL_SECONDS,
  type CaseContext,
  type ConformanceCase,
  type Held,
} from './conformance-case.js';

/**
 * Uniqueness claims held by an attempt (`holdUnique`, single-item writes, so every journal has
 * them): a claim held by a live attempt of another record is refused; a later attempt of the same
 * record retakes it; the completion makes it permanent; `letGoUnique` deletes only the holder's
 * claim; a holder whose lease ended before any effect is fenced out and loses it, one whose
 * effect began keeps it.
 */

/** Fails unless `hold` is refused with `UniqueConflictError` naming the claim and the record holding it. */
async function assertRefused(context: CaseContext, call: string, hold: UniqueHold, holderPk: string): Promise<void> {
  const conflict = await refusedWith(call, context.journal.holdUnique(hold), UniqueConflictError);
  assertSame(
    call,
    'UniqueConflictError claim',
    [conflict.claimName, conflict.claimValue],
    [hold.claim.name, hold.claim.value],
  );
  assertSame(
    call,
    `UniqueConflictError.existing.${ClaimAttribute.claimedBy} (the record holding the claim)`,
    conflict.existing?.[ClaimAttribute.claimedBy],
    holderPk,
  );
}

/** Takes `claim` for the attempt `held`, checking it landed. */
async function take(
  context: CaseContext,
  held: Held,
  claim: UniqueClaim,
  call = 'holdUnique() of a free claim',
): Promise<void> {
  await succeeds(call, context.journal.holdUnique(holdOf(held, claim)));
}

export const uniqueHoldCases: readonly ConformanceCase[] = [
  {
    name: 'holdUnique takes a free claim and refuses it to a live attempt of another record with UniqueConflictError',
    async run(context) {
      const claim = context.claim('free');
      const a = await holdNew(context, 'hold-a');
      const b = await holdNew(context, 'hold-b');
      await take(context, a, claim);
      await assertRefused(
        context,
        'holdUnique() of a claim a live attempt of another record holds',
        holdOf(b, claim),
        a.pk,
      );
    },
  },
  {
    name: 'holdUnique again by the attempt holding the claim succeeds',
    async run(context) {
      const claim = context.claim('again');
      const a = await holdNew(context, 'hold-again');
      await take(context, a, claim);
      await take(context, a, claim, 'holdUnique() of a claim the same attempt holds');
    },
  },
  {
    name: 'a later attempt of the same record retakes the claim its earlier attempt held',
    async run(context) {
      const claim = context.claim('retake');
      const first = await holdNew(context, 'hold-retake');
      await take(context, first, claim);
      endLeases(context);
      const record = await succeeds(
        'takeOver() of a lease that ended',
        context.journal.takeOver({ pk: first.pk, expectedToken: first.token, leaseMs: LEASE_MS }),
      );
      const later: Held = { pk: first.pk, token: record.leaseToken, record };
      await take(context, later, claim, 'holdUnique() by the attempt that took the record over');
      const other = await holdNew(context, 'hold-retake-other');
      await assertRefused(
        context,
        'holdUnique() of the retaken claim by another record',
        holdOf(other, claim),
        first.pk,
      );
    },
  },
  {
    name: 'letGoUnique by the holder frees the claim for another record',
    async run(context) {
      const claim = context.claim('let-go');
      const a = await holdNew(context, 'let-go-a');
      const b = await holdNew(context, 'let-go-b');
      await take(context, a, claim);
      await succeeds('letGoUnique() by the holder', context.journal.letGoUnique(holdOf(a, claim)));
      await take(context, b, claim, 'holdUnique() by another record after the holder let go');
    },
  },
  {
    name: 'letGoUnique by anyone but the holder leaves the claim held',
    async run(context) {
      const claim = context.claim('let-go-other');
      const taken = await takenOver(context, 'let-go-stale');
      await take(context, taken, claim);
      const other = await holdNew(context, 'let-go-stranger');
      await succeeds(
        'letGoUnique() with the token of an attempt already taken over',
        context.journal.letGoUnique({ ...holdOf(taken, claim), leaseToken: taken.staleToken }),
      );
      await succeeds('letGoUnique() by another record', context.journal.letGoUnique(holdOf(other, claim)));
      await assertRefused(
        context,
        'holdUnique() by another record after letGoUnique() calls by non-holders',
        holdOf(other, claim),
        taken.pk,
      );
    },
  },
  {
    name: 'a completion with heldClaims makes the claim permanent: refused to every other record, kept by letGoUnique',
    async run(context) {
      const claim = context.claim('permanent');
      const a = await holdNew(context, 'permanent-a');
      await take(context, a, claim);
      await succeeds(
        'complete() with heldClaims by the holder',
        context.journal.complete({
          pk: a.pk,
          leaseToken: a.token,
          response: 'claimed',
          ttlSeconds: TTL_SECONDS,
          writes: { staged: [], uniqueClaims: [], outbox: [], heldClaims: [claim] },
        }),
      );
      await succeeds('letGoUnique() by the completed holder', context.journal.letGoUnique(holdOf(a, claim)));
      endLeases(context);
      const b = await holdNew(context, 'permanent-b');
      await assertRefused(context, 'holdUnique() of a claim a completion made permanent', holdOf(b, claim), a.pk);
    },
  },
  {
    name: 'a hold whose attempt’s lease ended before any effect passes to another record, and that attempt is fenced out',
    async run(context) {
      const claim = context.claim('stale-holder');
      const a = await holdNew(context, 'stale-holder-a');
      await take(context, a, claim);
      endLeases(context);
      const b = await holdNew(context, 'stale-holder-b');
      await take(context, b, claim, 'holdUnique() of a claim whose holder’s lease ended before any effect');
      await refusedWith(
        'beginEffect() by the attempt whose hold passed to another record',
        context.journal.beginEffect(a.pk, a.token, 'refund'),
        LeaseLostError,
      );
      const c = await holdNew(context, 'stale-holder-c');
      await assertRefused(context, 'holdUnique() of the claim the new holder took', holdOf(c, claim), b.pk);
    },
  },
  {
    name: 'a hold whose attempt began an effect is kept after its lease ended',
    async run(context) {
      const claim = context.claim('effect-holder');
      const a = await holdNew(context, 'effect-holder-a');
      await take(context, a, claim);
      await succeeds('beginEffect() by the holder', context.journal.beginEffect(a.pk, a.token, 'refund'));
      endLeases(context);
      const b = await holdNew(context, 'effect-holder-b');
      await assertRefused(
        context,
        'holdUnique() of a claim whose holder began an effect and whose lease ended',
        holdOf(b, claim),
        a.pk,
      );
    },
  },
];

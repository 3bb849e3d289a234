import { LeaseLostError, NotResolvableError, RecordStatus } from '../../core/index.js';
import type { Resolution } from '../journal.js';
import { assertSame, refusedWith, succeeds } from './conformance-check.js';
import {
  assertFencedOut,
  assertUnchanged,
  completeHeld,
  endLeases,
  FINGERPRINT,
  holdNew,
  LEASE_MS,
  stored,
  takenOver,
  TTL_SECONDS,
  type ConformanceCase,
} from './conformance-case.js';

/**
 * Records no attempt will finish: `markAbandonedUnknown` (a later attempt finding an ended lease
 * whose effect may have happened) lands only with the token read and an ended lease, never on a
 * completed record; an operator's `resolve` only acts on an `UNKNOWN` record or an ended lease,
 * refusing anything else with `NotResolvableError`.
 */

const RELEASED: Resolution = { outcome: 'released' };

export const operatorCases: readonly ConformanceCase[] = [
  {
    name: 'markAbandonedUnknown of an ended lease, with its token, makes the record UNKNOWN with no expiry',
    async run(context) {
      const held = await holdNew(context, 'abandoned');
      endLeases(context);
      const call = 'markAbandonedUnknown() of an ended lease, with its token';
      const record = await succeeds(call, context.journal.markAbandonedUnknown(held.pk, held.token));
      assertSame(call, 'record.status', record.status, RecordStatus.unknown);
      assertSame(call, 'record.expiresAtEpochSeconds', record.expiresAtEpochSeconds, undefined);
      const after = await stored(context, held.pk);
      assertSame(`${call}, then get()`, 'record.status', after?.status, RecordStatus.unknown);
      assertSame(`${call}, then get()`, 'record.expiresAtEpochSeconds', after?.expiresAtEpochSeconds, undefined);
    },
  },
  {
    name: 'markAbandonedUnknown under a live lease is refused with LeaseLostError, and changes nothing',
    async run(context) {
      const held = await holdNew(context, 'abandoned-live');
      const before = await stored(context, held.pk);
      const call = 'markAbandonedUnknown() while the lease is live';
      await refusedWith(call, context.journal.markAbandonedUnknown(held.pk, held.token), LeaseLostError);
      await assertUnchanged(context, call, held.pk, before);
    },
  },
  {
    name: 'markAbandonedUnknown with a stale token is refused with LeaseLostError, and changes nothing',
    async run(context) {
      const taken = await takenOver(context, 'abandoned-stale');
      endLeases(context);
      const before = await stored(context, taken.pk);
      const call = 'markAbandonedUnknown() with the token of an attempt already taken over';
      await assertFencedOut(
        context,
        call,
        context.journal.markAbandonedUnknown(taken.pk, taken.staleToken),
        taken,
        before,
      );
    },
  },
  {
    name: 'markAbandonedUnknown never touches a completed record',
    async run(context) {
      const held = await holdNew(context, 'abandoned-completed');
      await completeHeld(context, held, 'done');
      endLeases(context);
      const before = await stored(context, held.pk);
      const call = 'markAbandonedUnknown() of a completed record, with its token';
      await refusedWith(call, context.journal.markAbandonedUnknown(held.pk, held.token), LeaseLostError);
      await assertUnchanged(context, call, held.pk, before);
    },
  },
  {
    name: 'resolve of a record under a live lease is refused with NotResolvableError carrying it, and changes nothing',
    async run(context) {
      const held = await holdNew(context, 'resolve-live');
      const before = await stored(context, held.pk);
      const call = 'resolve({ outcome: "released" }) while the lease is live';
      const refused = await refusedWith(call, context.journal.resolve(held.pk, RELEASED), NotResolvableError);
      assertSame(call, 'NotResolvableError.existing.leaseToken', refused.existing?.leaseToken, held.token);
      await assertUnchanged(context, call, held.pk, before);
    },
  },
  {
    name: 'resolve of a completed record is refused with NotResolvableError, and changes nothing',
    async run(context) {
      const held = await holdNew(context, 'resolve-completed');
      await completeHeld(context, held, 'done');
      endLeases(context);
      const before = await stored(context, held.pk);
      const call = 'resolve({ outcome: "completed" }) of a completed record';
      await refusedWith(
        call,
        context.journal.resolve(held.pk, { outcome: 'completed', response: 'operator', ttlSeconds: TTL_SECONDS }),
        NotResolvableError,
      );
      await assertUnchanged(context, call, held.pk, before);
    },
  },
  {
    name: 'resolve of a key no record holds is refused with NotResolvableError',
    async run(context) {
      const pk = context.key('resolve-absent');
      const call = 'resolve({ outcome: "released" }) of a key no record holds';
      await refusedWith(call, context.journal.resolve(pk, RELEASED), NotResolvableError);
      assertSame(`${call}, then get()`, 'the record', await stored(context, pk), undefined);
    },
  },
  {
    name: 'resolve completes an UNKNOWN record with the operator’s response, which later reserves replay',
    async run(context) {
      const held = await holdNew(context, 'resolve-unknown');
      await succeeds('markUnknown() by the lease holder', context.journal.markUnknown(held.pk, held.token));
      const now = context.clock.now();
      const call = 'resolve({ outcome: "completed" }) of an UNKNOWN record';
      await succeeds(
        call,
        context.journal.resolve(held.pk, { outcome: 'completed', response: { refunded: true }, ttlSeconds: 60 }),
      );
      const result = await succeeds(
        `${call}, then reserve() of the same request`,
        context.journal.reserve({ pk: held.pk, fingerprint: FINGERPRINT, leaseMs: LEASE_MS, ttlSeconds: TTL_SECONDS }),
      );
      assertSame(`${call}, then reserve()`, 'reserved', result.reserved, false);
      assertSame(`${call}, then reserve()`, 'record.status', result.record.status, RecordStatus.completed);
      assertSame(`${call}, then reserve()`, 'record.response', result.record.response, { value: { refunded: true } });
      assertSame(
        `${call}, then reserve()`,
        'record.expiresAtEpochSeconds (now + 60)',
        result.record.expiresAtEpochSeconds,
        Math.floor(now / 1000) + 60,
      );
    },
  },
  {
    name: 'resolve fences the former holder out: its later writes get LeaseLostError',
    async run(context) {
      const held = await holdNew(context, 'resolve-fence');
      await succeeds('markUnknown() by the lease holder', context.journal.markUnknown(held.pk, held.token));
      await succeeds(
        'resolve({ outcome: "completed" }) of an UNKNOWN record',
        context.journal.resolve(held.pk, { outcome: 'completed', response: 'operator', ttlSeconds: TTL_SECONDS }),
      );
      const before = await stored(context, held.pk);
      const call = 'markUnknown() by the former holder after an operator resolved its record';
      await refusedWith(call, context.journal.markUnknown(held.pk, held.token), LeaseLostError);
      await assertUnchanged(context, call, held.pk, before);
    },
  },
  {
    name: 'resolve releases an UNKNOWN record, so the key is claimable again',
    async run(context) {
      const held = await holdNew(context, 'resolve-release-unknown');
      await succeeds('markUnknown() by the lease holder', context.journal.markUnknown(held.pk, held.token));
      const call = 'resolve({ outcome: "released" }) of an UNKNOWN record';
      await succeeds(call, context.journal.resolve(held.pk, RELEASED));
      assertSame(`${call}, then get()`, 'the record', await stored(context, held.pk), undefined);
      const again = await succeeds(
        `${call}, then reserve()`,
        context.journal.reserve({ pk: held.pk, fingerprint: FINGERPRINT, leaseMs: LEASE_MS, ttlSeconds: TTL_SECONDS }),
      );
      assertSame(`${call}, then reserve()`, 'reserved', again.reserved, true);
    },
  },
  {
    name: 'resolve releases a record whose lease ended',
    async run(context) {
      const held = await holdNew(context, 'resolve-release-ended');
      endLeases(context);
      const call = 'resolve({ outcome: "released" }) of an in-progress record whose lease ended';
      await succeeds(call, context.journal.resolve(held.pk, RELEASED));
      assertSame(`${call}, then get()`, 'the record', await stored(context, held.pk), undefined);
    },
  },
];

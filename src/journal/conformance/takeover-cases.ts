import { LeaseLostError, RecordStatus } from '../../core/index.js';
import { assertSame, assertThat, refusedWith, succeeds } from './conformance-check.js';
import {
  assertFencedOut,
  assertUnchanged,
  completeHeld,
  endLeases,
  holdNew,
  LEASE_MS,
  stored,
  takenOver,
  type ConformanceCase,
} from './conformance-case.js';

/**
 * Takeover: one write fenced on the token read and on an ended lease. A stale token loses, a live
 * lease or a completed record is never taken, and of many containers taking over one orphaned
 * record at once exactly one wins (the bug class where two both took over and both ran).
 */

/** How many containers race to take one orphaned record over. */
const CONTENDERS = 8;

export const takeoverCases: readonly ConformanceCase[] = [
  {
    name: 'takeOver of an ended lease gives the record a new token, attempt + 1 and a lease from now',
    async run(context) {
      const held = await holdNew(context, 'takeover');
      endLeases(context);
      const now = context.clock.now();
      const call = 'takeOver() of a lease that ended, with its token';
      const record = await succeeds(
        call,
        context.journal.takeOver({ pk: held.pk, expectedToken: held.token, leaseMs: LEASE_MS }),
      );
      assertSame(call, 'record.status', record.status, RecordStatus.inProgress);
      assertSame(call, 'record.attempt', record.attempt, 2);
      assertSame(call, 'record.leaseUntilEpochMs (now + leaseMs)', record.leaseUntilEpochMs, now + LEASE_MS);
      assertSame(call, 'record.fingerprint', record.fingerprint, held.record.fingerprint);
      assertThat(call, 'a new lease token', record.leaseToken !== held.token, record.leaseToken);
      assertSame(
        `${call}, then get()`,
        'record.leaseToken',
        (await stored(context, held.pk))?.leaseToken,
        record.leaseToken,
      );
    },
  },
  {
    name: 'takeOver under a live lease is refused with LeaseLostError carrying the record, and changes nothing',
    async run(context) {
      const held = await holdNew(context, 'live');
      context.clock.advanceMs(LEASE_MS - 100);
      const before = await stored(context, held.pk);
      const call = 'takeOver() 100 ms before the lease ends';
      const lost = await refusedWith(
        call,
        context.journal.takeOver({ pk: held.pk, expectedToken: held.token, leaseMs: LEASE_MS }),
        LeaseLostError,
      );
      assertSame(call, 'LeaseLostError.existing.leaseToken', lost.existing?.leaseToken, held.token);
      await assertUnchanged(context, call, held.pk, before);
    },
  },
  {
    name: 'takeOver with a stale token loses with LeaseLostError carrying the record, even once every lease ended',
    async run(context) {
      const taken = await takenOver(context, 'stale');
      endLeases(context);
      const before = await stored(context, taken.pk);
      const call = 'takeOver() with the token of an attempt already taken over';
      const write = context.journal.takeOver({ pk: taken.pk, expectedToken: taken.staleToken, leaseMs: LEASE_MS });
      await assertFencedOut(context, call, write, taken, before);
    },
  },
  {
    name: 'concurrent takeovers of one orphaned record: exactly one wins, every other gets LeaseLostError',
    async run(context) {
      const held = await holdNew(context, 'orphan-race');
      endLeases(context);
      const journals = await context.contenders(CONTENDERS);
      const call = `takeOver() of one orphaned record by ${CONTENDERS} containers at once`;
      const outcomes = await Promise.allSettled(
        journals.map((journal) => journal.takeOver({ pk: held.pk, expectedToken: held.token, leaseMs: LEASE_MS })),
      );
      const winners = outcomes.flatMap((outcome) => (outcome.status === 'fulfilled' ? [outcome.value] : []));
      assertThat(call, 'exactly one takeover to win', winners.length === 1, `${winners.length} won`);
      const others = outcomes.flatMap((outcome) => (outcome.status === 'rejected' ? [outcome.reason as unknown] : []));
      const strays = others.filter((reason) => !(reason instanceof LeaseLostError));
      assertThat(call, 'every losing takeover to throw LeaseLostError', strays.length === 0, strays[0]);
      const after = await stored(context, held.pk);
      assertSame(`${call}, then get()`, 'record.leaseToken (the winner’s)', after?.leaseToken, winners[0].leaseToken);
      assertSame(`${call}, then get()`, 'record.attempt', after?.attempt, 2);
    },
  },
  {
    name: 'takeOver of an UNKNOWN record with its token puts it back IN_PROGRESS under a new lease',
    async run(context) {
      const held = await holdNew(context, 'unknown');
      await succeeds('markUnknown() by the lease holder', context.journal.markUnknown(held.pk, held.token));
      endLeases(context);
      const call = 'takeOver() of an UNKNOWN record, with its token';
      const record = await succeeds(
        call,
        context.journal.takeOver({ pk: held.pk, expectedToken: held.token, leaseMs: LEASE_MS }),
      );
      assertSame(call, 'record.status', record.status, RecordStatus.inProgress);
      assertSame(call, 'record.attempt', record.attempt, 2);
      assertThat(call, 'a new lease token', record.leaseToken !== held.token, record.leaseToken);
    },
  },
  {
    name: 'takeOver never takes a completed record, even with its token and its lease ended',
    async run(context) {
      const held = await holdNew(context, 'completed');
      await completeHeld(context, held, 'done');
      endLeases(context);
      const before = await stored(context, held.pk);
      const call = 'takeOver() of a completed record, with its token';
      await refusedWith(
        call,
        context.journal.takeOver({ pk: held.pk, expectedToken: held.token, leaseMs: LEASE_MS }),
        LeaseLostError,
      );
      await assertUnchanged(context, call, held.pk, before);
    },
  },
  {
    name: 'takeOver of a key no record holds is refused with LeaseLostError',
    async run(context) {
      const pk = context.key('absent');
      const call = 'takeOver() of a key no record holds';
      await refusedWith(
        call,
        context.journal.takeOver({ pk, expectedToken: 'no-such-token', leaseMs: LEASE_MS }),
        LeaseLostError,
      );
      assertSame(`${call}, then get()`, 'the record', await stored(context, pk), undefined);
    },
  },
];

import { RecordStatus } from '../../core/index.js';
import type { ReserveResult } from '../journal.js';
import { assertSame, assertThat, succeeds } from './conformance-check.js';
import {
  assertUnchanged,
  completeHeld,
  FINGERPRINT,
  holdNew,
  LEASE_MS,
  stored,
  TTL_SECONDS,
  type CaseContext,
  type ConformanceCase,
} from './conformance-case.js';

/**
 * Reservation: one atomic claim of an absent or expired key, or the record that holds it back;
 * expiry read from `expiresAt`, never trusted to a store's TTL; an `UNKNOWN` record, or one whose
 * effect began, never expires; a released key is free again.
 */

/** How many attempts race for one key. */
const CONTENDERS = 8;
const DAY_MS = 24 * 3_600 * 1_000;

function reserveAgain(context: CaseContext, pk: string, fingerprint = FINGERPRINT): Promise<ReserveResult> {
  return context.journal.reserve({ pk, fingerprint, leaseMs: LEASE_MS, ttlSeconds: TTL_SECONDS });
}

export const reservationCases: readonly ConformanceCase[] = [
  {
    name: 'reserve claims a new key: IN_PROGRESS, attempt 1, a lease and an expiry read from the given clock',
    async run(context) {
      const now = context.clock.now();
      const pk = context.key('new');
      const call = 'reserve() of a new key';
      const result = await succeeds(
        call,
        context.journal.reserve({ pk, fingerprint: FINGERPRINT, leaseMs: LEASE_MS, ttlSeconds: TTL_SECONDS }),
      );
      assertSame(call, 'reserved', result.reserved, true);
      assertSame(call, 'replacedExpired', result.reserved && result.replacedExpired, false);
      const { record } = result;
      assertSame(call, 'record.pk', record.pk, pk);
      assertSame(call, 'record.status', record.status, RecordStatus.inProgress);
      assertSame(call, 'record.fingerprint', record.fingerprint, FINGERPRINT);
      assertSame(call, 'record.attempt', record.attempt, 1);
      assertSame(call, 'record.effectStarted', record.effectStarted, false);
      assertSame(call, 'record.evidence', record.evidence, {});
      assertSame(call, 'record.response', record.response, undefined);
      assertThat(
        call,
        'a lease token (a non-empty string)',
        typeof record.leaseToken === 'string' && record.leaseToken !== '',
        record.leaseToken,
      );
      assertSame(
        call,
        'record.leaseUntilEpochMs (now + leaseMs, from the clock createJournal was given)',
        record.leaseUntilEpochMs,
        now + LEASE_MS,
      );
      assertSame(call, 'record.createdAtEpochMs', record.createdAtEpochMs, now);
      assertSame(
        call,
        'record.expiresAtEpochSeconds (epoch seconds now + ttlSeconds)',
        record.expiresAtEpochSeconds,
        Math.floor(now / 1000) + TTL_SECONDS,
      );
      assertSame(`${call}, then get()`, 'the record', await stored(context, pk), record);
    },
  },
  {
    name: 'a refused reserve returns the record that holds the key, and changes nothing',
    async run(context) {
      const held = await holdNew(context, 'held');
      const before = await stored(context, held.pk);
      const call = 'reserve() of a key another attempt holds (another fingerprint)';
      const result = await succeeds(call, reserveAgain(context, held.pk, 'fp-conformance-other'));
      assertSame(call, 'reserved', result.reserved, false);
      assertSame(call, 'record.leaseToken (the holder’s)', result.record.leaseToken, held.token);
      assertSame(call, 'record.fingerprint (the holder’s)', result.record.fingerprint, FINGERPRINT);
      assertSame(call, 'record.status', result.record.status, RecordStatus.inProgress);
      await assertUnchanged(context, call, held.pk, before);
    },
  },
  {
    name: `concurrent reserves of one key: exactly one wins, every other gets the winner’s record back`,
    async run(context) {
      const pk = context.key('race');
      const journals = await context.contenders(CONTENDERS);
      const call = `reserve() of one new key by ${CONTENDERS} attempts at once`;
      const results = await succeeds(
        call,
        Promise.all(
          journals.map((journal) =>
            journal.reserve({ pk, fingerprint: FINGERPRINT, leaseMs: LEASE_MS, ttlSeconds: TTL_SECONDS }),
          ),
        ),
      );
      const winners = results.filter((result) => result.reserved);
      assertThat(call, 'exactly one reservation to win', winners.length === 1, `${winners.length} won`);
      const token = winners[0].record.leaseToken;
      const losers = results.filter((result) => !result.reserved);
      assertSame(
        call,
        'the leaseToken of every refused reserve’s record (the winner’s)',
        losers.map((result) => result.record.leaseToken),
        losers.map(() => token),
      );
      assertSame(
        `${call}, then get()`,
        'record.leaseToken (the winner’s)',
        (await stored(context, pk))?.leaseToken,
        token,
      );
    },
  },
  {
    name: 'a refused reserve of a completed key returns the record with its response',
    async run(context) {
      const held = await holdNew(context, 'completed');
      await completeHeld(context, held, { orderId: 'o-1', amount: 1250 });
      const call = 'reserve() of a completed key (same fingerprint)';
      const result = await succeeds(call, reserveAgain(context, held.pk));
      assertSame(call, 'reserved', result.reserved, false);
      assertSame(call, 'record.status', result.record.status, RecordStatus.completed);
      assertSame(call, 'record.response', result.record.response, { value: { orderId: 'o-1', amount: 1250 } });
    },
  },
  {
    name: 'a completed record past its expiresAt is reserved again, with replacedExpired: true',
    async run(context) {
      const held = await holdNew(context, 'expired');
      await completeHeld(context, held, 'first', 60);
      context.clock.advanceMs(61_000);
      const call = 'reserve() of a completed key 61 s after completion with ttlSeconds 60';
      const result = await succeeds(call, reserveAgain(context, held.pk));
      assertSame(call, 'reserved', result.reserved, true);
      assertSame(call, 'replacedExpired', result.reserved && result.replacedExpired, true);
      assertSame(call, 'record.status', result.record.status, RecordStatus.inProgress);
      assertSame(call, 'record.attempt', result.record.attempt, 1);
      assertSame(call, 'record.response', result.record.response, undefined);
      assertThat(call, 'a new lease token', result.record.leaseToken !== held.token, result.record.leaseToken);
    },
  },
  {
    name: 'a completed record before its expiresAt is not claimable',
    async run(context) {
      const held = await holdNew(context, 'not-expired');
      await completeHeld(context, held, 'first', 60);
      context.clock.advanceMs(59_000);
      const call = 'reserve() of a completed key 59 s after completion with ttlSeconds 60';
      const result = await succeeds(call, reserveAgain(context, held.pk));
      assertSame(call, 'reserved', result.reserved, false);
      assertSame(call, 'record.response', result.record.response, { value: 'first' });
    },
  },
  {
    name: 'an in-progress record past its expiresAt, its lease ended, is reserved again',
    async run(context) {
      const held = await holdNew(context, 'expired-lease', { ttlSeconds: 2 });
      context.clock.advanceMs(3_000);
      const call = 'reserve() of an in-progress key past its expiresAt and its lease';
      const result = await succeeds(call, reserveAgain(context, held.pk));
      assertSame(call, 'reserved', result.reserved, true);
      assertSame(call, 'replacedExpired', result.reserved && result.replacedExpired, true);
      assertThat(call, 'a new lease token', result.record.leaseToken !== held.token, result.record.leaseToken);
    },
  },
  {
    name: 'a record under a live lease is not claimable, even with a retention shorter than the lease',
    async run(context) {
      const held = await holdNew(context, 'short-ttl', { leaseMs: 10_000, ttlSeconds: 1 });
      context.clock.advanceMs(5_000);
      const call = 'reserve() 5 s into a 10 s lease reserved with ttlSeconds 1';
      const result = await succeeds(call, reserveAgain(context, held.pk));
      assertSame(call, 'reserved', result.reserved, false);
      assertSame(call, 'record.leaseToken (the holder’s)', result.record.leaseToken, held.token);
    },
  },
  {
    name: 'an UNKNOWN record never expires',
    async run(context) {
      const held = await holdNew(context, 'unknown');
      await succeeds('markUnknown() by the lease holder', context.journal.markUnknown(held.pk, held.token));
      context.clock.advanceMs(30 * DAY_MS);
      const call = 'reserve() of an UNKNOWN key 30 days later';
      const result = await succeeds(call, reserveAgain(context, held.pk));
      assertSame(call, 'reserved', result.reserved, false);
      assertSame(call, 'record.status', result.record.status, RecordStatus.unknown);
      assertSame(call, 'record.expiresAtEpochSeconds', result.record.expiresAtEpochSeconds, undefined);
    },
  },
  {
    name: 'a record whose effect began never expires',
    async run(context) {
      const held = await holdNew(context, 'effect');
      await succeeds('beginEffect() by the lease holder', context.journal.beginEffect(held.pk, held.token, 'charge'));
      context.clock.advanceMs(30 * DAY_MS);
      const call = 'reserve() 30 days after beginEffect()';
      const result = await succeeds(call, reserveAgain(context, held.pk));
      assertSame(call, 'reserved', result.reserved, false);
      assertSame(call, 'record.effectStarted', result.record.effectStarted, true);
      assertSame(call, 'record.expiresAtEpochSeconds', result.record.expiresAtEpochSeconds, undefined);
    },
  },
  {
    name: 'release deletes the record, so the key is claimable again',
    async run(context) {
      const held = await holdNew(context, 'release');
      await succeeds('release() by the lease holder', context.journal.release(held.pk, held.token));
      assertSame('release() by the lease holder, then get()', 'the record', await stored(context, held.pk), undefined);
      const call = 'reserve() of a released key';
      const result = await succeeds(call, reserveAgain(context, held.pk));
      assertSame(call, 'reserved', result.reserved, true);
      assertSame(call, 'replacedExpired', result.reserved && result.replacedExpired, false);
    },
  },
];

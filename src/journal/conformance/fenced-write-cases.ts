import { LeaseLostError, RecordStatus } from '../../core/index.js';
import type { Journal } from '../journal.js';
import { assertSame, assertThat, refusedWith, succeeds } from './conformance-check.js';
import {
  assertFencedOut,
  holdNew,
  LEASE_MS,
  stored,
  takenOver,
  TTL_SECONDS,
  type ConformanceCase,
} from './conformance-case.js';

/**
 * Every write after the reservation is fenced on the caller's lease token: an attempt whose lease
 * was taken over gets `LeaseLostError` carrying the record and changes nothing, so it can never
 * overwrite the outcome of the attempt that replaced it. The holder's own writes land.
 */

/** One fenced write, made with `leaseToken` on the record `pk`. */
interface FencedWrite {
  readonly name: string;
  write(journal: Journal, pk: string, leaseToken: string): Promise<unknown>;
}

const FENCED_WRITES: readonly FencedWrite[] = [
  { name: 'heartbeat', write: (journal, pk, token) => journal.heartbeat(pk, token, LEASE_MS) },
  { name: 'beginEffect', write: (journal, pk, token) => journal.beginEffect(pk, token, 'charge') },
  { name: 'recordEvidence', write: (journal, pk, token) => journal.recordEvidence(pk, token, { chargeId: 'ch_late' }) },
  {
    name: 'complete',
    write: (journal, pk, token) =>
      journal.complete({ pk, leaseToken: token, response: 'late', ttlSeconds: TTL_SECONDS }),
  },
  { name: 'markUnknown', write: (journal, pk, token) => journal.markUnknown(pk, token) },
  { name: 'release', write: (journal, pk, token) => journal.release(pk, token) },
];

/** The stale-token case of one fenced write. */
function staleTokenCase({ name, write }: FencedWrite): ConformanceCase {
  return {
    name: `${name} with a stale token gets LeaseLostError carrying the record, and changes nothing`,
    async run(context) {
      const taken = await takenOver(context, `stale-${name}`);
      const before = await stored(context, taken.pk);
      const call = `${name}() with the token of an attempt already taken over`;
      await assertFencedOut(context, call, write(context.journal, taken.pk, taken.staleToken), taken, before);
    },
  };
}

export const fencedWriteCases: readonly ConformanceCase[] = [
  ...FENCED_WRITES.map(staleTokenCase),
  {
    name: 'heartbeat by the holder extends the lease from now and returns its end',
    async run(context) {
      const held = await holdNew(context, 'heartbeat');
      context.clock.advanceMs(LEASE_MS - 100);
      const now = context.clock.now();
      const call = 'heartbeat() by the lease holder, 100 ms before its lease ends';
      const leaseUntil = await succeeds(call, context.journal.heartbeat(held.pk, held.token, LEASE_MS));
      assertSame(call, 'its answer (now + leaseMs)', leaseUntil, now + LEASE_MS);
      assertSame(
        `${call}, then get()`,
        'record.leaseUntilEpochMs',
        (await stored(context, held.pk))?.leaseUntilEpochMs,
        now + LEASE_MS,
      );
      context.clock.advanceMs(LEASE_MS - 100);
      await refusedWith(
        'takeOver() within the lease the heartbeat extended',
        context.journal.takeOver({ pk: held.pk, expectedToken: held.token, leaseMs: LEASE_MS }),
        LeaseLostError,
      );
    },
  },
  {
    name: 'beginEffect by the holder sets effectStarted and the effect name, and the record keeps its state',
    async run(context) {
      const held = await holdNew(context, 'begin-effect');
      const call = 'beginEffect() by the lease holder';
      await succeeds(call, context.journal.beginEffect(held.pk, held.token, 'charge'));
      const record = await stored(context, held.pk);
      assertSame(`${call}, then get()`, 'record.effectStarted', record?.effectStarted, true);
      assertSame(`${call}, then get()`, 'record.effectName', record?.effectName, 'charge');
      assertSame(`${call}, then get()`, 'record.status', record?.status, RecordStatus.inProgress);
      assertSame(`${call}, then get()`, 'record.leaseToken', record?.leaseToken, held.token);
      assertSame(`${call}, then get()`, 'record.attempt', record?.attempt, held.record.attempt);
      assertSame(
        `${call}, then get()`,
        'record.leaseUntilEpochMs',
        record?.leaseUntilEpochMs,
        held.record.leaseUntilEpochMs,
      );
      assertSame(
        `${call}, then get()`,
        'record.expiresAtEpochSeconds (no expiry once an effect began)',
        record?.expiresAtEpochSeconds,
        undefined,
      );
    },
  },
  {
    name: 'recordEvidence by the holder merges into the record’s evidence',
    async run(context) {
      const held = await holdNew(context, 'evidence');
      const call = 'recordEvidence() by the lease holder, twice';
      await succeeds(call, context.journal.recordEvidence(held.pk, held.token, { chargeId: 'ch_1', attempts: 1 }));
      await succeeds(call, context.journal.recordEvidence(held.pk, held.token, { attempts: 2, ticket: 'T-9' }));
      const record = await stored(context, held.pk);
      assertSame(`${call}, then get()`, 'record.evidence', record?.evidence, {
        chargeId: 'ch_1',
        attempts: 2,
        ticket: 'T-9',
      });
      assertSame(`${call}, then get()`, 'record.status', record?.status, RecordStatus.inProgress);
    },
  },
  {
    name: 'markUnknown by the holder makes the record UNKNOWN with no expiry, under the same token',
    async run(context) {
      const held = await holdNew(context, 'mark-unknown');
      const call = 'markUnknown() by the lease holder';
      await succeeds(call, context.journal.markUnknown(held.pk, held.token));
      const record = await stored(context, held.pk);
      assertSame(`${call}, then get()`, 'record.status', record?.status, RecordStatus.unknown);
      assertSame(`${call}, then get()`, 'record.expiresAtEpochSeconds', record?.expiresAtEpochSeconds, undefined);
      assertSame(`${call}, then get()`, 'record.leaseToken', record?.leaseToken, held.token);
    },
  },
  {
    name: 'the attempt that took over holds the record: its own fenced writes land',
    async run(context) {
      const taken = await takenOver(context, 'new-holder');
      const call = 'beginEffect(), recordEvidence() and complete() by the attempt that took over';
      await succeeds(call, context.journal.beginEffect(taken.pk, taken.token, 'charge'));
      await succeeds(call, context.journal.recordEvidence(taken.pk, taken.token, { chargeId: 'ch_2' }));
      await succeeds(
        call,
        context.journal.complete({
          pk: taken.pk,
          leaseToken: taken.token,
          response: 'second',
          ttlSeconds: TTL_SECONDS,
        }),
      );
      const record = await stored(context, taken.pk);
      assertSame(`${call}, then get()`, 'record.status', record?.status, RecordStatus.completed);
      assertSame(`${call}, then get()`, 'record.response', record?.response, { value: 'second' });
      assertSame(`${call}, then get()`, 'record.evidence', record?.evidence, { chargeId: 'ch_2' });
      assertThat(`${call}, then get()`, 'the record to be attempt 2', record?.attempt === 2, record?.attempt);
    },
  },
];

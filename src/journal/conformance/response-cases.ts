import { LeaseLostError, RecordStatus } from '../../core/index.js';
import type { JournalRecord } from '../journal.js';
import { assertSame, assertSameText, assertThat, refusedWith, succeeds } from './conformance-check.js';
import {
  assertUnchanged,
  completeHeld,
  FINGERPRINT,
  holdNew,
  LEASE_MS,
  stored,
  takenOver,
  TTL_SECONDS,
  type CaseContext,
  type ConformanceCase,
} from './conformance-case.js';

/**
 * Completion: the outcome is stored once and replayed as it was stored, byte for byte, through
 * `get()` and through a refused reservation; a completed record is final (no second completion,
 * no release), and the attempt that marked its record `UNKNOWN` may still complete it.
 */

/** Characters of the large response: ASCII and 2-, 3- and 4-byte UTF-8 sequences, so byte counts differ from lengths. */
const LARGE_RESPONSE_ALPHABET = [...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/', 'é', '€', '😀'];
const LARGE_RESPONSE_CHARS = 300 * 1024;

/**
 * About 300 KB of text that does not compress much (a pseudo-random sequence, the same on every
 * run): a store that compresses or splits large responses must give back every byte.
 */
function largeText(): string {
  let state = 0x2545f491;
  let text = '';
  for (let i = 0; i < LARGE_RESPONSE_CHARS; i++) {
    // xorshift32: deterministic, so a failure reproduces.
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    text += LARGE_RESPONSE_ALPHABET[(state >>> 0) % LARGE_RESPONSE_ALPHABET.length];
  }
  return text;
}

const NESTED_RESPONSE = {
  statusCode: 201,
  headers: { 'content-type': 'application/json', 'x-order-id': 'o-42' },
  body: JSON.stringify({ id: 'o-42', total: 12.5 }),
  order: {
    id: 'o-42',
    lines: [
      { sku: 'A-1', quantity: 2, price: 3.75, tags: [] },
      { sku: 'B-2', quantity: 1, price: 5, tags: ['gift', 'fragile'], note: null },
    ],
    paid: true,
    refunded: false,
    counts: { zero: 0, negative: -7, large: Number.MAX_SAFE_INTEGER, tiny: 1e-7 },
    text: 'Grüße, 東京 😀 "quoted" \\ back\nslash\ttab',
    empty: {},
    deep: { a: { b: { c: { d: { e: ['f'] } } } } },
  },
};

/** The responses a completion must store and replay exactly, by what they are. */
const RESPONSES: readonly { readonly what: string; readonly value: () => unknown }[] = [
  { what: 'a string response', value: () => 'accepted' },
  { what: 'a nested JSON response', value: () => NESTED_RESPONSE },
  { what: 'a large (~300 KB) response', value: () => ({ statusCode: 200, body: largeText() }) },
];

/** Fails unless `record` carries `value` as its response, equal in structure and in its JSON text. */
function assertResponse(call: string, record: JournalRecord | undefined, value: unknown): void {
  assertThat(call, 'the record to carry a response', record?.response !== undefined, record);
  assertSame(call, 'record.response.value', record?.response?.value, value);
  assertSameText(
    call,
    'the JSON of record.response.value (byte-identical to what was completed)',
    JSON.stringify(record?.response?.value) ?? '',
    JSON.stringify(value) ?? '',
  );
}

/** The record a refused reservation of the same request returns. */
async function replayed(context: CaseContext, pk: string): Promise<JournalRecord> {
  const call = 'reserve() of a completed key (same fingerprint)';
  const result = await succeeds(
    call,
    context.journal.reserve({ pk, fingerprint: FINGERPRINT, leaseMs: LEASE_MS, ttlSeconds: TTL_SECONDS }),
  );
  assertSame(call, 'reserved', result.reserved, false);
  return result.record;
}

function responseCase({ what, value }: (typeof RESPONSES)[number]): ConformanceCase {
  return {
    name: `complete stores ${what} that get and a refused reserve return byte-identically`,
    async run(context) {
      const response = value();
      const held = await holdNew(context, 'response');
      await completeHeld(context, held, response);
      assertResponse('complete(), then get()', await stored(context, held.pk), response);
      assertResponse('complete(), then reserve() of the same request', await replayed(context, held.pk), response);
    },
  };
}

export const responseCases: readonly ConformanceCase[] = [
  {
    name: 'complete makes the record COMPLETED, expiring ttlSeconds from now',
    async run(context) {
      const held = await holdNew(context, 'completed');
      context.clock.advanceMs(500);
      const now = context.clock.now();
      await completeHeld(context, held, 'done', 60);
      const record = await stored(context, held.pk);
      const call = 'complete() with ttlSeconds 60, then get()';
      assertSame(call, 'record.status', record?.status, RecordStatus.completed);
      assertSame(
        call,
        'record.expiresAtEpochSeconds (epoch seconds now + 60)',
        record?.expiresAtEpochSeconds,
        Math.floor(now / 1000) + 60,
      );
      assertSame(call, 'record.fingerprint', record?.fingerprint, FINGERPRINT);
    },
  },
  ...RESPONSES.map(responseCase),
  {
    name: 'complete stores an undefined response as an empty outcome, not a missing one',
    async run(context) {
      const held = await holdNew(context, 'undefined');
      await completeHeld(context, held, undefined);
      const call = 'complete() with response undefined, then reserve() of the same request';
      const record = await replayed(context, held.pk);
      assertThat(call, 'record.response to be { value: undefined }', record.response !== undefined, record.response);
      assertSame(call, 'record.response.value', record.response?.value, undefined);
    },
  },
  {
    name: 'a completed record cannot be completed again by its holder: the first response is kept',
    async run(context) {
      const held = await holdNew(context, 'complete-twice');
      await completeHeld(context, held, 'first');
      const before = await stored(context, held.pk);
      const call = 'complete() of a completed record, by its holder';
      // A journal cannot tell this call from a resend of the completion that landed (its answer lost), so it may
      // resolve as that resend would; what it may not do is store the second response, or fail any other way.
      const error = await context.journal
        .complete({ pk: held.pk, leaseToken: held.token, response: 'second', ttlSeconds: TTL_SECONDS })
        .then(
          () => undefined,
          (thrown: unknown) => thrown,
        );
      assertThat(
        call,
        'it to resolve or throw LeaseLostError',
        error === undefined || error instanceof LeaseLostError,
        error,
      );
      await assertUnchanged(context, call, held.pk, before);
    },
  },
  {
    name: 'a stale attempt cannot complete a record the attempt that took over completed: LeaseLostError',
    async run(context) {
      const taken = await takenOver(context, 'complete-after-takeover');
      await completeHeld(context, taken, 'second attempt');
      const before = await stored(context, taken.pk);
      const call = 'complete() by the attempt taken over, after the new holder completed';
      const lost = await refusedWith(
        call,
        context.journal.complete({
          pk: taken.pk,
          leaseToken: taken.staleToken,
          response: 'stale',
          ttlSeconds: TTL_SECONDS,
        }),
        LeaseLostError,
      );
      assertSame(call, 'LeaseLostError.existing.status', lost.existing?.status, RecordStatus.completed);
      await assertUnchanged(context, call, taken.pk, before);
    },
  },
  {
    name: 'a completed record cannot be released, even by its holder',
    async run(context) {
      const held = await holdNew(context, 'release-completed');
      await completeHeld(context, held, 'kept');
      const before = await stored(context, held.pk);
      const call = 'release() of a completed record, by its holder';
      await refusedWith(call, context.journal.release(held.pk, held.token), LeaseLostError);
      await assertUnchanged(context, call, held.pk, before);
    },
  },
  {
    name: 'the holder may still complete a record it marked UNKNOWN',
    async run(context) {
      const held = await holdNew(context, 'complete-unknown');
      await succeeds('markUnknown() by the lease holder', context.journal.markUnknown(held.pk, held.token));
      await completeHeld(context, held, 'finished late');
      const record = await stored(context, held.pk);
      const call = 'markUnknown(), then complete() by the same holder, then get()';
      assertSame(call, 'record.status', record?.status, RecordStatus.completed);
      assertSame(call, 'record.response', record?.response, { value: 'finished late' });
    },
  },
];

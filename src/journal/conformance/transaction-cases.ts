import { randomUUID } from 'node:crypto';
import { IdempotencyError, RecordStatus, UniqueConflictError } from '../../core/index.js';
import type { CompletionWrites, Journal, StagedCommit, TransactItem } from '../journal.js';
import { assertSame, assertThat, refusedWith, succeeds } from './conformance-check.js';
import {
  assertUnchanged,
  completeHeld,
  FINGERPRINT,
  holdNew,
  holdOf,
  stored,
  TTL_SECONDS,
  type CaseContext,
  type ConformanceCase,
} from './conformance-case.js';

/**
 * What commits in one transaction: permanent uniqueness claims written with the completion
 * (`claimUnique`), staged writes, and the staged-only commit (`commitStaged`). A journal with
 * transactions commits them all or nothing; one without (a Valkey journal, DynamoDB with
 * multi-Region strong consistency) refuses them with a typed error before anything is written,
 * never degrading them to separate writes.
 */

const NO_WRITES: CompletionWrites = { staged: [], uniqueClaims: [], outbox: [] };
/** How many staged-only attempts of one key commit at once. */
const CONTENDERS = 4;

function stagedCommit(context: CaseContext, pk: string, response: unknown, writes = NO_WRITES): StagedCommit {
  return {
    pk,
    fingerprint: FINGERPRINT,
    commitToken: randomUUID(),
    createdAtEpochMs: context.clock.now(),
    response,
    ttlSeconds: TTL_SECONDS,
    writes,
  };
}

/** A staged write no journal may apply without a transaction (its table is never read: it must be refused first). */
function stagedPut(context: CaseContext): TransactItem {
  return { Put: { TableName: 'idemkit-conformance-staged', Item: { pk: context.key('staged-item') } } };
}

/**
 * The typed error a journal without transactions refuses a feature with: an `IdempotencyError`
 * that says the feature is not available, not `JournalUnavailableError` (which tells the caller to
 * retry, and a retry would be refused again).
 */
async function refusedAsUnsupported(call: string, promise: Promise<unknown>): Promise<void> {
  const error = await refusedWith(call, promise, IdempotencyError);
  assertThat(call, 'a refusal of the feature, not journal-unavailable', error.code !== 'journal-unavailable', error);
}

/** The completion of `pk` by `token` with `writes`. */
function completeWith(journal: Journal, pk: string, token: string, writes: CompletionWrites): Promise<void> {
  return journal.complete({ pk, leaseToken: token, response: 'with writes', ttlSeconds: TTL_SECONDS, writes });
}

/** Cases for a journal with transactions. */
export const transactionCases: readonly ConformanceCase[] = [
  {
    name: 'a completion with uniqueClaims makes the claims permanent together with the record',
    async run(context) {
      const claim = context.claim('claim-unique');
      const a = await holdNew(context, 'claim-a');
      await succeeds(
        'complete() with uniqueClaims',
        completeWith(context.journal, a.pk, a.token, { ...NO_WRITES, uniqueClaims: [claim] }),
      );
      assertSame(
        'complete() with uniqueClaims, then get()',
        'record.status',
        (await stored(context, a.pk))?.status,
        RecordStatus.completed,
      );
      const b = await holdNew(context, 'claim-b');
      await refusedWith(
        'holdUnique() of a claim a completion committed',
        context.journal.holdUnique(holdOf(b, claim)),
        UniqueConflictError,
      );
    },
  },
  {
    name: 'a completion whose uniqueness claim is taken commits nothing: UniqueConflictError, the record still held',
    async run(context) {
      const claim = context.claim('claim-taken');
      const a = await holdNew(context, 'claim-taken-a');
      await succeeds(
        'complete() with uniqueClaims',
        completeWith(context.journal, a.pk, a.token, { ...NO_WRITES, uniqueClaims: [claim] }),
      );
      const b = await holdNew(context, 'claim-taken-b');
      const before = await stored(context, b.pk);
      const call = 'complete() with a uniqueness claim another record committed';
      await refusedWith(
        call,
        completeWith(context.journal, b.pk, b.token, { ...NO_WRITES, uniqueClaims: [claim] }),
        UniqueConflictError,
      );
      await assertUnchanged(context, call, b.pk, before);
    },
  },
  {
    name: 'commitStaged commits an absent key: a COMPLETED record with its response',
    async run(context) {
      const pk = context.key('staged-new');
      const call = 'commitStaged() of a key no record holds';
      const result = await succeeds(call, context.journal.commitStaged(stagedCommit(context, pk, { statusCode: 201 })));
      assertSame(call, 'its answer', result, { kind: 'committed' });
      const record = await stored(context, pk);
      assertSame(`${call}, then get()`, 'record.status', record?.status, RecordStatus.completed);
      assertSame(`${call}, then get()`, 'record.fingerprint', record?.fingerprint, FINGERPRINT);
      assertSame(`${call}, then get()`, 'record.attempt', record?.attempt, 1);
      assertSame(`${call}, then get()`, 'record.response', record?.response, { value: { statusCode: 201 } });
      assertSame(
        `${call}, then get()`,
        'record.expiresAtEpochSeconds',
        record?.expiresAtEpochSeconds,
        Math.floor(context.clock.now() / 1000) + TTL_SECONDS,
      );
    },
  },
  {
    name: 'commitStaged over a live lease is refused with the record, which stays as it was',
    async run(context) {
      const held = await holdNew(context, 'staged-held');
      const before = await stored(context, held.pk);
      const call = 'commitStaged() of a key a leased attempt holds';
      const result = await succeeds(call, context.journal.commitStaged(stagedCommit(context, held.pk, 'staged')));
      assertSame(call, 'its answer’s kind', result.kind, 'refused');
      assertSame(
        call,
        'record.leaseToken (the holder’s)',
        result.kind === 'refused' ? result.record.leaseToken : undefined,
        held.token,
      );
      await assertUnchanged(context, call, held.pk, before);
    },
  },
  {
    name: 'commitStaged over a completed record is refused with the record and its response',
    async run(context) {
      const held = await holdNew(context, 'staged-completed');
      await completeHeld(context, held, { first: true });
      const before = await stored(context, held.pk);
      const call = 'commitStaged() of a completed key';
      const result = await succeeds(
        call,
        context.journal.commitStaged(stagedCommit(context, held.pk, { first: false })),
      );
      assertSame(call, 'its answer’s kind', result.kind, 'refused');
      assertSame(call, 'record.response', result.kind === 'refused' ? result.record.response : undefined, {
        value: { first: true },
      });
      await assertUnchanged(context, call, held.pk, before);
    },
  },
  {
    name: 'concurrent commitStaged of one key: one commits, every other is refused or raced and lands nothing',
    async run(context) {
      const pk = context.key('staged-race');
      const journals = await context.contenders(CONTENDERS);
      const call = `commitStaged() of one new key by ${CONTENDERS} attempts at once`;
      const results = await succeeds(
        call,
        Promise.all(journals.map((journal, i) => journal.commitStaged(stagedCommit(context, pk, { attempt: i })))),
      );
      const kinds = results.map((result) => result.kind);
      const committed = kinds.filter((kind) => kind === 'committed').length;
      // A transaction cancelled by a concurrent one ('raced') lands nothing: should every attempt be cancelled, none commits.
      assertThat(
        call,
        'exactly one commit (or none, when every attempt was raced)',
        committed === 1 || (committed === 0 && kinds.includes('raced')),
        kinds,
      );
      const expected = committed === 1 ? { value: { attempt: kinds.indexOf('committed') } } : undefined;
      assertSame(
        `${call}, then get()`,
        'record.response (the committed attempt’s)',
        (await stored(context, pk))?.response,
        expected,
      );
    },
  },
];

/** Cases for a journal without transactions: each feature that needs one is refused, nothing written. */
export const refusalCases: readonly ConformanceCase[] = [
  {
    name: 'commitStaged is refused with a typed error, and writes nothing',
    async run(context) {
      const pk = context.key('no-staged');
      const call = 'commitStaged() on a journal without transactions';
      await refusedAsUnsupported(call, context.journal.commitStaged(stagedCommit(context, pk, 'staged')));
      assertSame(`${call}, then get()`, 'the record', await stored(context, pk), undefined);
    },
  },
  {
    name: 'a completion with staged writes is refused with a typed error, and changes nothing',
    async run(context) {
      const held = await holdNew(context, 'no-stage');
      const before = await stored(context, held.pk);
      const call = 'complete() with a staged write on a journal without transactions';
      await refusedAsUnsupported(
        call,
        completeWith(context.journal, held.pk, held.token, { ...NO_WRITES, staged: [stagedPut(context)] }),
      );
      await assertUnchanged(context, call, held.pk, before);
    },
  },
  {
    name: 'a completion with uniqueClaims is refused with a typed error, and changes nothing',
    async run(context) {
      const held = await holdNew(context, 'no-claim');
      const claim = context.claim('no-claim');
      const before = await stored(context, held.pk);
      const call = 'complete() with uniqueClaims on a journal without transactions';
      await refusedAsUnsupported(
        call,
        completeWith(context.journal, held.pk, held.token, { ...NO_WRITES, uniqueClaims: [claim] }),
      );
      await assertUnchanged(context, call, held.pk, before);
      const other = await holdNew(context, 'no-claim-other');
      await succeeds(
        'holdUnique() of the claim a refused completion named',
        context.journal.holdUnique(holdOf(other, claim)),
      );
    },
  },
];

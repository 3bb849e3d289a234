import { MemoryJournal } from '../../../src/index.js';
import { journalConformance, type CreateJournal } from '../../../src/journal/conformance/index.js';
import * as broken from './support/broken-journals.js';
import { collectingRunner, failedNames, type CaseOutcome } from './support/collecting-runner.js';
import { type Journal } from '../../../src/entries/journal.js';

/*
 * The conformance suite can fail, and fails where it should: run through a runner that records
 * each case's outcome, against journals that each break one rule of the contract, exactly the
 * cases that check that rule fail, with a message naming the call.
 */

const RESERVE = 'Journal conformance > reserve > ';
const TAKE_OVER = 'Journal conformance > takeOver > ';
const FENCED = 'Journal conformance > fenced writes > ';
const COMPLETE = 'Journal conformance > complete and replay > ';
const OPERATOR = 'Journal conformance > markAbandonedUnknown and resolve > ';
const HOLDS = 'Journal conformance > holdUnique and letGoUnique > ';
const TRANSACTIONS = 'Journal conformance > transactions > ';
const WITHOUT = 'Journal conformance > without transactions > ';

type JournalClass = new (options: { clock: () => number }) => Journal;

async function outcomesOf(journal: JournalClass, transactions = true): Promise<CaseOutcome[]> {
  const runner = collectingRunner();
  journalConformance(({ clock }) => new journal({ clock }), { describe: runner.describe, it: runner.it, transactions });
  return runner.run();
}

const staleWrite = (name: string) =>
  `${FENCED}${name} with a stale token gets LeaseLostError carrying the record, and changes nothing`;

describe('the conformance suite against journals that break the contract', () => {
  it.each<[string, JournalClass, string[]]>([
    ['complete ignores the lease token', broken.CompleteIgnoresToken, [staleWrite('complete')]],
    [
      'takeOver ignores the token it read',
      broken.TakeOverIgnoresToken,
      [
        `${TAKE_OVER}takeOver with a stale token loses with LeaseLostError carrying the record, even once every lease ended`,
      ],
    ],
    [
      'takeOver reads, then writes without a condition',
      broken.TakeOverNotAtomic,
      [`${TAKE_OVER}concurrent takeovers of one orphaned record: exactly one wins, every other gets LeaseLostError`],
    ],
    [
      'takeOver does not wait for the lease to end',
      broken.TakesLiveLeases,
      [
        `${TAKE_OVER}takeOver under a live lease is refused with LeaseLostError carrying the record, and changes nothing`,
        `${FENCED}heartbeat by the holder extends the lease from now and returns its end`,
      ],
    ],
    [
      'takeOver takes completed records',
      broken.TakesCompletedRecords,
      [`${TAKE_OVER}takeOver never takes a completed record, even with its token and its lease ended`],
    ],
    [
      'reserve reads, then claims without a condition',
      broken.ReserveNotAtomic,
      [`${RESERVE}concurrent reserves of one key: exactly one wins, every other gets the winner’s record back`],
    ],
    [
      'reserve trusts expiry to the store',
      broken.ExpiryNotRead,
      [
        `${RESERVE}a completed record past its expiresAt is reserved again, with replacedExpired: true`,
        `${RESERVE}an in-progress record past its expiresAt, its lease ended, is reserved again`,
      ],
    ],
    ['reserve claims UNKNOWN records', broken.UnknownExpires, [`${RESERVE}an UNKNOWN record never expires`]],
    [
      'beginEffect leaves the expiry in place',
      broken.EffectKeepsExpiry,
      [
        `${RESERVE}a record whose effect began never expires`,
        `${FENCED}beginEffect by the holder sets effectStarted and the effect name, and the record keeps its state`,
      ],
    ],
    ['heartbeat ignores the lease token', broken.unfenced('heartbeat'), [staleWrite('heartbeat')]],
    [
      'beginEffect ignores the lease token',
      broken.unfenced('beginEffect'),
      [
        staleWrite('beginEffect'),
        `${HOLDS}a hold whose attempt’s lease ended before any effect passes to another record, and that attempt is fenced out`,
      ],
    ],
    ['recordEvidence ignores the lease token', broken.unfenced('recordEvidence'), [staleWrite('recordEvidence')]],
    [
      'markUnknown ignores the lease token',
      broken.unfenced('markUnknown'),
      [
        staleWrite('markUnknown'),
        `${OPERATOR}resolve fences the former holder out: its later writes get LeaseLostError`,
      ],
    ],
    ['release ignores the lease token', broken.unfenced('release'), [staleWrite('release')]],
    [
      'a refused reserve leaves the response out',
      broken.RefusedReserveWithoutResponse,
      [
        `${RESERVE}a refused reserve of a completed key returns the record with its response`,
        `${RESERVE}a completed record before its expiresAt is not claimable`,
        `${COMPLETE}complete stores a string response that get and a refused reserve return byte-identically`,
        `${COMPLETE}complete stores a nested JSON response that get and a refused reserve return byte-identically`,
        `${COMPLETE}complete stores a large (~300 KB) response that get and a refused reserve return byte-identically`,
        `${COMPLETE}complete stores an undefined response as an empty outcome, not a missing one`,
        `${OPERATOR}resolve completes an UNKNOWN record with the operator’s response, which later reserves replay`,
      ],
    ],
    [
      'complete stores responses with their keys sorted',
      broken.ResponseKeysSorted,
      [
        `${COMPLETE}complete stores a nested JSON response that get and a refused reserve return byte-identically`,
        `${COMPLETE}complete stores a large (~300 KB) response that get and a refused reserve return byte-identically`,
      ],
    ],
    [
      'the holder’s complete overwrites a completed record',
      broken.CompletionOverwrites,
      [`${COMPLETE}a completed record cannot be completed again by its holder: the first response is kept`],
    ],
    [
      'the holder’s release deletes a completed record',
      broken.ReleasesCompletedRecords,
      [`${COMPLETE}a completed record cannot be released, even by its holder`],
    ],
    [
      'markAbandonedUnknown does not wait for the lease to end',
      broken.AbandonsLiveLeases,
      [`${OPERATOR}markAbandonedUnknown under a live lease is refused with LeaseLostError, and changes nothing`],
    ],
    [
      'resolve acts on live leases',
      broken.ResolvesLiveLeases,
      [
        `${OPERATOR}resolve of a record under a live lease is refused with NotResolvableError carrying it, and changes nothing`,
      ],
    ],
    [
      'holdUnique takes claims whoever holds them',
      broken.HoldsAnyClaim,
      [
        `${HOLDS}holdUnique takes a free claim and refuses it to a live attempt of another record with UniqueConflictError`,
        `${HOLDS}a later attempt of the same record retakes the claim its earlier attempt held`,
        `${HOLDS}letGoUnique by anyone but the holder leaves the claim held`,
        `${HOLDS}a completion with heldClaims makes the claim permanent: refused to every other record, kept by letGoUnique`,
        `${HOLDS}a hold whose attempt’s lease ended before any effect passes to another record, and that attempt is fenced out`,
        `${HOLDS}a hold whose attempt began an effect is kept after its lease ended`,
        `${TRANSACTIONS}a completion with uniqueClaims makes the claims permanent together with the record`,
      ],
    ],
    [
      'letGoUnique deletes claims whoever holds them',
      broken.LetsGoAnyClaim,
      [
        `${HOLDS}letGoUnique by anyone but the holder leaves the claim held`,
        `${HOLDS}a completion with heldClaims makes the claim permanent: refused to every other record, kept by letGoUnique`,
      ],
    ],
    [
      'letGoUnique keeps the claim',
      broken.LetGoKeepsClaims,
      [`${HOLDS}letGoUnique by the holder frees the claim for another record`],
    ],
    [
      'commitStaged replaces whatever record holds the key',
      broken.CommitStagedOverwrites,
      [
        `${TRANSACTIONS}commitStaged over a live lease is refused with the record, which stays as it was`,
        `${TRANSACTIONS}commitStaged over a completed record is refused with the record and its response`,
        `${TRANSACTIONS}concurrent commitStaged of one key: one commits, every other is refused or raced and lands nothing`,
      ],
    ],
  ])('%s: exactly the cases of that rule fail', async (_rule, journal, expected) => {
    const failed = failedNames(await outcomesOf(journal));

    expect(failed.sort()).toEqual([...expected].sort());
  });

  it.each<[string, JournalClass, string[]]>([
    [
      'drops staged writes and claims instead of refusing them',
      broken.DropsWhatNeedsTransactions,
      [
        `${WITHOUT}a completion with staged writes is refused with a typed error, and changes nothing`,
        `${WITHOUT}a completion with uniqueClaims is refused with a typed error, and changes nothing`,
      ],
    ],
    [
      'refuses commitStaged as journal-unavailable',
      broken.RefusesAsUnavailable,
      [`${WITHOUT}commitStaged is refused with a typed error, and writes nothing`],
    ],
    [
      'says it has no transactions but commits them',
      MemoryJournal,
      [
        `${WITHOUT}commitStaged is refused with a typed error, and writes nothing`,
        `${WITHOUT}a completion with staged writes is refused with a typed error, and changes nothing`,
        `${WITHOUT}a completion with uniqueClaims is refused with a typed error, and changes nothing`,
      ],
    ],
  ])(
    'a journal without transactions that %s fails exactly the refusal cases it breaks',
    async (_rule, journal, expected) => {
      const failed = failedNames(await outcomesOf(journal, false));

      expect(failed.sort()).toEqual([...expected].sort());
    },
  );

  it('names the storage call, what was expected and what came back', async () => {
    const outcomes = await outcomesOf(broken.CompleteIgnoresToken);

    const failure = outcomes.find((outcome) => outcome.error)?.error;
    expect(failure?.message).toBe(
      'complete() with the token of an attempt already taken over: expected LeaseLostError, it succeeded with undefined',
    );
  });

  it('says how many attempts won a race', async () => {
    const outcomes = await outcomesOf(broken.ReserveNotAtomic);

    expect(outcomes.find((outcome) => outcome.error)?.error?.message).toBe(
      'reserve() of one new key by 8 attempts at once: expected exactly one reservation to win, got "8 won"',
    );
  });

  it('points at the first byte where a replayed response differs', async () => {
    const outcomes = await outcomesOf(broken.ResponseKeysSorted);

    const message = outcomes.find((outcome) => outcome.error)?.error?.message;
    expect(message).toMatch(/^complete\(\), then get\(\): the JSON of record\.response\.value/);
    expect(message).toContain('should be 490 chars, got 490, first different at char 2');
    expect(message).toContain('got …"{\\"body\\"');
  });

  it('catches a journal that reads the real time instead of the clock it was given, at its first lease', async () => {
    const ignoresClock: CreateJournal = () => new MemoryJournal();
    const runner = collectingRunner();
    journalConformance(ignoresClock, { describe: runner.describe, it: runner.it });

    const [first] = await runner.run();

    expect(first.error?.message).toMatch(
      /^reserve\(\) of a new key: record\.leaseUntilEpochMs \(now \+ leaseMs, from the clock createJournal was given\) should be \d+, got \d+$/,
    );
  });
});

describe('the conformance suite against journals that keep the contract', () => {
  it('passes MemoryJournal on every case', async () => {
    const outcomes = await outcomesOf(MemoryJournal);

    expect(failedNames(outcomes)).toEqual([]);
    expect(outcomes.length).toBeGreaterThan(50);
  });

  it('passes a journal without transactions that refuses what needs one', async () => {
    const outcomes = await outcomesOf(broken.WithoutTransactions, false);

    expect(failedNames(outcomes)).toEqual([]);
  });
});

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { decide, type DecisionKind } from '../../src/engine/decision.js';
import {
  JournalCondition,
  JournalGuard,
  type GuardedItem,
  type JournalConditionName,
} from '../../src/journal/conditions.js';
import { RecordStatus, type JournalRecord } from '../../src/journal/index.js';
import { evaluate, expand, MODEL_STATUS, statesOf } from '../support/promela-guards.js';

interface GuardEntry {
  expression: string;
  usedBy: string[];
  promela: string | null;
  notModelled?: string;
}

const root = join(__dirname, '../..');
/** A guard on the claim item of a held uniqueness claim (the model's `cex`, `chold`, …), not on a record. */
const isClaimGuard = (entry: GuardEntry) =>
  /\bcex\b/.test(expand(/^#define (\w+)/.exec(entry.promela!)![1]!, ['1', '1']));
const guards = JSON.parse(readFileSync(join(root, 'model/guards.json'), 'utf8')) as Record<string, GuardEntry>;
const model = readFileSync(join(root, 'model/journal.pml'), 'utf8');
const modelLines = model.split('\n').map((line) => line.trim());
const journalDir = join(root, 'src/journal');
const journalSources = readdirSync(journalDir)
  .filter((file) => file.endsWith('.ts') && file !== 'conditions.ts')
  .map((file) => ({ file, text: readFileSync(join(journalDir, file), 'utf8') }));

describe('the model and the journal name the same guards', () => {
  it('has a table entry for every condition the journal uses, and none more', () => {
    expect(Object.keys(guards).sort()).toEqual(Object.keys(JournalCondition).sort());
  });

  it.each(Object.entries(JournalCondition))('table entry %s carries the journal’s expression', (name, expression) => {
    expect(guards[name]?.expression).toBe(expression);
  });

  it.each(Object.entries(guards).filter(([, entry]) => entry.promela !== null))(
    'model guard for %s is the one in the table, under the expression it stands for',
    (name, entry) => {
      expect(modelLines).toContain(entry.promela);
      expect(model).toContain(`/* guard ${name}: ${entry.expression} */`);
      const macro = /^#define (\w+)/.exec(entry.promela!)![1]!;
      const uses = model
        .split('\n')
        .filter((line) => new RegExp(`\\b${macro}\\b`).test(line) && !line.trim().startsWith(`#define ${macro}`));
      expect(uses.length).toBeGreaterThan(0);
    },
  );

  it.each(Object.entries(guards).filter(([, entry]) => entry.promela === null))(
    'says why %s is not modelled',
    (_name, entry) => {
      expect(entry.notModelled?.length).toBeGreaterThan(20);
    },
  );

  it('writes every condition of the journal through the named conditions, not inline', () => {
    const inline = journalSources
      .filter(({ text }) => /ConditionExpression:\s*['"`]/.test(text))
      .map(({ file }) => file);
    const copies = journalSources
      .filter(({ text }) => Object.values(JournalCondition).some((expression) => text.includes(expression)))
      .map(({ file }) => file);
    expect(inline).toEqual([]);
    expect(copies).toEqual([]);
  });
});

describe('the journal’s conditions as TypeScript predicates take the model’s branches', () => {
  const nowEpochMs = Date.UTC(2026, 11, 1, 12, 0, 0);
  const nowSeconds = Math.floor(nowEpochMs / 1000);
  const { INP, DONE, UNK } = MODEL_STATUS;
  const statusNames = new Map<number, string>([
    [INP, RecordStatus.inProgress],
    [DONE, RecordStatus.completed],
    [UNK, RecordStatus.unknown],
  ]);
  /** The record a model state stands for; the caller's token is the model's token 1. */
  const itemOf = (state: Record<string, boolean | number>): GuardedItem | undefined =>
    state.exists
      ? {
          status: statusNames.get(state.status as number),
          leaseToken: `token-${state.tok}`,
          leaseUntilEpochMs: state.live ? nowEpochMs + 5_000 : nowEpochMs - 5_000,
          expiresAtEpochSeconds: state.hasEx ? (state.expired ? nowSeconds - 10 : nowSeconds + 10) : undefined,
          effectStarted: Boolean(state.eff),
          // The model has one request for its key: every record carries the fingerprint of the attempt that reads it.
          fingerprint: 'f',
        }
      : undefined;
  const states = statesOf({
    exists: [false, true],
    status: [INP, DONE, UNK],
    tok: [1, 2],
    live: [false, true],
    hasEx: [false, true],
    expired: [false, true],
    eff: [false, true],
  }).filter(
    (state) => state.exists || (state.status === INP && state.tok === 1 && !state.live && !state.hasEx && !state.eff),
  );

  it.each(Object.entries(guards).filter(([, entry]) => entry.promela !== null && !isClaimGuard(entry)))(
    'JournalGuard.%s holds in exactly the states its model guard holds',
    (name, entry) => {
      const [, macro, params] = /^#define (\w+)(?:\(([^)]*)\))?/.exec(entry.promela!)!;
      const args = params ? params.split(',').map(() => '1') : [];
      const guard = JournalGuard[name as JournalConditionName];
      const disagreeing = states.filter(
        (state) =>
          guard(itemOf(state), { nowEpochMs, token: 'token-1', fingerprint: 'f' }) !== evaluate(macro!, state, args),
      );
      expect(disagreeing).toEqual([]);
    },
  );
});

describe('the conditions on a held uniqueness claim as TypeScript predicates take the model’s branches', () => {
  const nowEpochMs = Date.UTC(2026, 11, 1, 12, 0, 0);
  /** The model's THISKEY, the record a holdUnique names; OTHERKEY is another key's. */
  const owners = new Map<number, string>([
    [1, 'req#-#op#this'],
    [2, 'req#-#op#other'],
  ]);
  /** A model createdAt (the attempt whose reservation created the record) as epoch ms. */
  const createdAt = (crt: number) => nowEpochMs - 60_000 + crt;
  /** The claim item a model state stands for: the caller names the model's record 1 (created at 1), token 1. */
  const claimOf = (state: Record<string, boolean | number>): GuardedItem | undefined =>
    state.cex
      ? {
          claimedBy: owners.get(state.cown as number),
          ownerCreatedAtEpochMs: createdAt(state.ccrt as number),
          holdToken: state.chold ? `token-${state.chold}` : undefined,
          pinned: Boolean(state.cpin),
        }
      : undefined;
  const states = statesOf({
    cex: [false, true],
    cown: [1, 2],
    ccrt: [1, 2],
    chold: [0, 1, 2],
    cpin: [false, true],
  }).filter((state) => state.cex || (state.cown === 1 && state.ccrt === 1 && state.chold === 0 && !state.cpin));

  it.each(Object.entries(guards).filter(([, entry]) => entry.promela !== null && isClaimGuard(entry)))(
    'JournalGuard.%s holds in exactly the claim states its model guard holds',
    (name, entry) => {
      const [, macro, params] = /^#define (\w+)(?:\(([^)]*)\))?/.exec(entry.promela!)!;
      const args = params ? params.split(',').map(() => '1') : [];
      const guard = JournalGuard[name as JournalConditionName];
      const values = { nowEpochMs, token: 'token-1', owner: owners.get(1), ownerCreatedAtEpochMs: createdAt(1) };
      const disagreeing = states.filter((state) => guard(claimOf(state), values) !== evaluate(macro!, state, args));
      expect(disagreeing).toEqual([]);
    },
  );
});

describe('decide() takes the branch the model takes on a record read', () => {
  interface DecisionEntry {
    promela: string | null;
    stagedOnly?: string;
    notModelled?: string;
  }
  const decisions = JSON.parse(readFileSync(join(root, 'model/decisions.json'), 'utf8')) as Record<
    DecisionKind,
    DecisionEntry
  >;
  const nowEpochMs = Date.UTC(2026, 11, 1, 12, 0, 0);
  const nowSeconds = Math.floor(nowEpochMs / 1000);
  const { INP, DONE, UNK } = MODEL_STATUS;
  const statusNames = new Map<number, (typeof RecordStatus)[keyof typeof RecordStatus]>([
    [INP, RecordStatus.inProgress],
    [DONE, RecordStatus.completed],
    [UNK, RecordStatus.unknown],
  ]);
  const states = statesOf({
    status: [INP, DONE, UNK],
    live: [false, true],
    hasEx: [false, true],
    expired: [false, true],
    eff: [false, true],
  });
  const recordOf = (state: Record<string, boolean | number>): JournalRecord => ({
    pk: 'req#-#op#k',
    status: statusNames.get(state.status as number)!,
    fingerprint: 'f',
    leaseToken: 'token-2',
    leaseUntilEpochMs: state.live ? nowEpochMs + 5_000 : nowEpochMs - 5_000,
    expiresAtEpochSeconds: state.hasEx ? (state.expired ? nowSeconds - 10 : nowSeconds + 10) : undefined,
    attempt: 1,
    createdAtEpochMs: nowEpochMs - 60_000,
    updatedAtEpochMs: nowEpochMs - 60_000,
    evidence: {},
    effectStarted: Boolean(state.eff),
  });

  it('names every kind of decision, and says why the ones the model has not are not modelled', () => {
    const kinds: DecisionKind[] = [
      'claimable',
      'replay',
      'mismatch',
      'in-progress',
      'resume',
      'take-over',
      'recover',
      'review',
      'unreadable',
    ];
    expect(Object.keys(decisions).sort()).toEqual([...kinds].sort());
    for (const entry of Object.values(decisions)) {
      if (entry.promela === null) expect(entry.notModelled?.length).toBeGreaterThan(20);
      else expect(entry.promela.split(' ').every((macro) => expand(macro).length > 0)).toBe(true);
    }
  });

  it.each([
    ['a leased attempt without a recover hook', 'leased', false],
    ['a leased attempt with a recover hook', 'leased', true],
    ['a staged-only attempt', 'staged-only', false],
  ] as const)('for %s, in every state the model reads', (_name, mode, recoverHook) => {
    const expected = (state: Record<string, boolean | number>): string => {
      const model = {
        ...state,
        exists: true,
        sst: state.status,
        slive: Boolean(state.live) && state.status === INP,
        seff: state.eff,
      };
      const free = mode === 'staged-only' ? decisions.claimable.stagedOnly! : decisions.claimable.promela!;
      if (evaluate(free, model)) return 'claimable';
      const named = (['replay', 'take-over', 'in-progress'] as const).find((kind) =>
        evaluate(decisions[kind].promela!, model),
      );
      if (named) return named;
      expect(evaluate(decisions.review.promela!, model)).toBe(true);
      return mode === 'leased' && recoverHook ? 'recover' : `review${state.status === INP ? ' abandon' : ''}`;
    };
    const actual = (state: Record<string, boolean | number>): string => {
      const decision = decide(recordOf(state), { fingerprint: 'f', nowEpochMs, mode, recoverHook });
      return decision.kind === 'review' && decision.abandon ? 'review abandon' : decision.kind;
    };
    const disagreeing = states
      .filter((state) => actual(state) !== expected(state))
      .map((state) => ({
        state,
        model: expected(state),
        decide: actual(state),
      }));
    expect(disagreeing).toEqual([]);
  });
});

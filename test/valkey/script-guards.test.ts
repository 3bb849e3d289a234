import { randomUUID } from 'node:crypto';
import { IdempotencyError } from '../../src/index.js';
import { ValkeyJournal } from '../../src/entries/valkey.js';
import {
  JournalGuard,
  RecordAttribute as A,
  RecordStatus,
  type JournalConditionName,
  type JournalItem,
} from '../../src/journal/index.js';
import { fieldsOf } from '../../src/valkey/hash-fields.js';
import { startValkeyServer, type ValkeyServer } from '../support/valkey.js';

/*
 * Ties each Lua script to the condition it stands for. For every record state a grid spans
 * (status, whether the caller's token holds it, lease live or ended, expiry past, ahead or none,
 * effect begun or not, and no record at all), the record is written straight into the server,
 * the journal call is made, and whether it landed must be what `JournalGuard` — the predicate of the
 * DynamoDB condition of the same name, checked against the model's guard by test/model/guards.test.ts
 * — says DynamoDB would decide. A script's guard that drifts from its condition fails here.
 */
let server: ValkeyServer;
beforeAll(async () => {
  server = await startValkeyServer();
});
afterAll(() => server?.stop());

const NOW = Date.parse('2026-06-01T12:00:00Z');
const HELD = 'token-held';

interface State {
  readonly status: string;
  readonly ours: boolean;
  readonly leaseEnded: boolean;
  readonly expiry: 'past' | 'ahead' | 'none';
  readonly effectStarted: boolean;
}

const STATES: readonly (State | undefined)[] = [
  undefined,
  ...[RecordStatus.inProgress, RecordStatus.completed, RecordStatus.unknown].flatMap((status) =>
    [true, false].flatMap((ours) =>
      [true, false].flatMap((leaseEnded) =>
        (['past', 'ahead', 'none'] as const).flatMap((expiry) =>
          [true, false].map((effectStarted) => ({ status, ours, leaseEnded, expiry, effectStarted })),
        ),
      ),
    ),
  ),
];

function itemOf(pk: string, state: State): JournalItem {
  return {
    pk,
    kind: 'request',
    status: state.status,
    fingerprint: 'fp',
    leaseToken: state.ours ? HELD : 'token-other',
    leaseUntil: state.leaseEnded ? NOW - 5_000 : NOW + 5_000,
    attempt: 1,
    createdAt: NOW - 60_000,
    updatedAt: NOW - 60_000,
    expiresAt: state.expiry === 'none' ? undefined : Math.floor(NOW / 1000) + (state.expiry === 'past' ? -10 : 600),
    effectStarted: state.effectStarted,
    ...(state.status === RecordStatus.completed ? { responseEncoding: 'json', response: '{"value":"done"}' } : {}),
  };
}

type Call = (journal: ValkeyJournal, pk: string) => Promise<unknown>;
const CALLS: readonly (readonly [string, JournalConditionName, Call])[] = [
  [
    'reserve',
    'claimable',
    async (journal, pk) => {
      const { reserved } = await journal.reserve({ pk, fingerprint: 'fp', leaseMs: 1_000, ttlSeconds: 60 });
      if (!reserved) throw new Error('refused');
    },
  ],
  ['takeOver', 'takeOver', (journal, pk) => journal.takeOver({ pk, expectedToken: HELD, leaseMs: 1_000 })],
  ['heartbeat', 'leaseHeld', (journal, pk) => journal.heartbeat(pk, HELD, 1_000)],
  ['beginEffect', 'leaseHeld', (journal, pk) => journal.beginEffect(pk, HELD, 'charge')],
  ['recordEvidence', 'leaseHeld', (journal, pk) => journal.recordEvidence(pk, HELD, { chargeId: 'ch_1' })],
  ['markUnknown', 'leaseHeld', (journal, pk) => journal.markUnknown(pk, HELD)],
  [
    'complete',
    'leaseHeldNotCompleted',
    (journal, pk) => journal.complete({ pk, leaseToken: HELD, response: 'ok', ttlSeconds: 60 }),
  ],
  ['release', 'leaseHeldNotCompleted', (journal, pk) => journal.release(pk, HELD)],
  ['markAbandonedUnknown', 'abandonedLease', (journal, pk) => journal.markAbandonedUnknown(pk, HELD)],
  ['resolve', 'resolvable', (journal, pk) => journal.resolve(pk, { outcome: 'released' })],
];

describe.each(CALLS)('the %s script decides as the %s condition', (name, condition, call) => {
  it('in every state of the grid', async () => {
    const client = server.client();
    const journal = new ValkeyJournal({ client, clock: () => NOW, logger: { warn: () => undefined } });
    const mismatches: string[] = [];
    for (const state of STATES) {
      const pk = `req#-#grid#${randomUUID()}`;
      const item = state && itemOf(pk, state);
      if (item) await client.hset(journal.keyOf(pk), ...fieldsOf(item));
      const landed = await call(journal, pk).then(
        () => true,
        (error: unknown) => {
          if (error instanceof IdempotencyError && error.code === 'journal-unavailable') throw error;
          return false;
        },
      );
      const guard = JournalGuard[condition](
        item && {
          status: state!.status,
          leaseToken: item[A.leaseToken] as string,
          leaseUntilEpochMs: item[A.leaseUntil] as number,
          expiresAtEpochSeconds: item[A.expiresAt] as number | undefined,
          effectStarted: state!.effectStarted,
          fingerprint: 'fp',
        },
        { nowEpochMs: NOW, token: HELD },
      );
      // A completion of a record already completed under the caller's token is a resend of one that landed: it resolves
      // and writes nothing, as the DynamoDB journal's does.
      const ownCompletion = name === 'complete' && state?.status === RecordStatus.completed && state.ours;
      if (landed !== (guard || ownCompletion))
        mismatches.push(`${JSON.stringify(state)}: landed ${landed}, condition ${guard}`);
    }
    expect(mismatches).toEqual([]);
  });
});

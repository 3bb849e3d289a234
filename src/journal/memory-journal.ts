import {
  assertKnownOptions,
  readFunction,
  InvalidOptionsError,
  LeaseLostError,
  NotResolvableError,
  UniqueConflictError,
  WriteConflictError,
} from '../core/index.js';
import { outboxItem, uniqueItem } from './completion-writes.js';
import type {
  Completion,
  CompletionWrites,
  Evidence,
  Journal,
  JournalRecord,
  ReserveRequest,
  ReserveResult,
  Resolution,
  StagedCommit,
  StagedCommitResult,
  TakeOverRequest,
  TransactItem,
  UniqueHold,
} from './journal.js';
import { recordFromItem, reservationItem } from './record-item.js';
import { guardedItemOf, JournalGuard, type GuardValues, type JournalConditionName } from './conditions.js';
import { expiryFromNow, newLeaseToken } from './record-lifetime.js';
import { ClaimAttribute, RecordStatus } from './schema.js';
import { heldClaimItem } from './unique-holds.js';
import { stagedCommitItems } from './staged-commit.js';
import { parseStored, responseJson } from './stored-response.js';

const OWNER = 'MemoryJournal';

/** Options of {@link MemoryJournal}. */
export interface MemoryJournalOptions {
  /**
   * Epoch milliseconds now.
   * @default Date.now
   */
  readonly clock?: () => number;
  /**
   * Key attribute names of the tables that staged writes target, by table name; a table not
   * named here is keyed by `pk` and `sk` (whichever of them an item has).
   * @default {}
   */
  readonly tableKeys?: Record<string, readonly string[]>;
}

type MutableRecord = { -readonly [K in keyof JournalRecord]: JournalRecord[K] };

/** Name of the in-memory table holding uniqueness claims and outbox items. */
export const MEMORY_JOURNAL_TABLE = 'memory-journal';

/**
 * The journal in memory, with the same rules as {@link DynamoDBJournal}: for unit tests,
 * examples and single-process tools. Staged `Put`/`Delete` items land in {@link tables}.
 *
 * @example
 * const journal = new MemoryJournal();
 * const handler = middy(fn).use(httpIdempotency({ journal }));
 */
export class MemoryJournal implements Journal {
  /** In-memory tables written by staged items, uniqueness claims and outbox events, by table name. */
  readonly tables = new Map<string, Map<string, Record<string, unknown>>>();
  private readonly records = new Map<string, MutableRecord>();
  private readonly clock: () => number;
  private readonly tableKeys: Record<string, readonly string[]>;

  constructor(options: MemoryJournalOptions = {}) {
    assertKnownOptions(OWNER, options, [
      'clock',
      'tableKeys',
    ] as const satisfies readonly (keyof MemoryJournalOptions)[]);
    this.clock = readFunction(OWNER, 'clock', options.clock, Date.now);
    const tableKeys = options.tableKeys ?? {};
    const isKeyList = (names: unknown) =>
      Array.isArray(names) && names.length > 0 && names.every((name) => typeof name === 'string' && name !== '');
    if (typeof tableKeys !== 'object' || tableKeys === null || !Object.values(tableKeys).every(isKeyList)) {
      throw new InvalidOptionsError(
        `${OWNER}: option 'tableKeys' must map table names to lists of key attribute names`,
      );
    }
    this.tableKeys = tableKeys;
  }

  async reserve(request: ReserveRequest): Promise<ReserveResult> {
    const now = this.clock();
    const existing = this.records.get(request.pk);
    if (!JournalGuard.claimable(existing, { nowEpochMs: now })) return { reserved: false, record: copy(existing!) };
    const record: MutableRecord = recordFromItem(reservationItem(request, now));
    this.records.set(request.pk, record);
    return { reserved: true, record: copy(record), replacedExpired: existing !== undefined };
  }

  async takeOver({ pk, expectedToken, leaseMs, durableExecutionArn }: TakeOverRequest): Promise<JournalRecord> {
    const now = this.clock();
    const record = this.fenced(pk, 'takeOver', { nowEpochMs: now, token: expectedToken });
    Object.assign(record, {
      status: RecordStatus.inProgress,
      leaseToken: newLeaseToken(),
      leaseUntilEpochMs: now + leaseMs,
      attempt: record.attempt + 1,
      updatedAtEpochMs: now,
      durableExecutionArn,
    });
    return copy(record);
  }

  async heartbeat(pk: string, leaseToken: string, leaseMs: number): Promise<number> {
    const now = this.clock();
    const record = this.fenced(pk, 'leaseHeld', { nowEpochMs: now, token: leaseToken });
    Object.assign(record, { leaseUntilEpochMs: now + leaseMs, updatedAtEpochMs: now });
    return record.leaseUntilEpochMs;
  }

  async beginEffect(pk: string, leaseToken: string, effectName: string): Promise<void> {
    const record = this.fenced(pk, 'leaseHeld', { nowEpochMs: this.clock(), token: leaseToken });
    Object.assign(record, {
      effectStarted: true,
      effectName,
      expiresAtEpochSeconds: undefined,
      updatedAtEpochMs: this.clock(),
    });
  }

  async recordEvidence(pk: string, leaseToken: string, evidence: Evidence): Promise<void> {
    const record = this.fenced(pk, 'leaseHeld', { nowEpochMs: this.clock(), token: leaseToken });
    Object.assign(record, { evidence: { ...record.evidence, ...evidence }, updatedAtEpochMs: this.clock() });
  }

  async complete({ pk, leaseToken, response, ttlSeconds, writes }: Completion): Promise<void> {
    const now = this.clock();
    const stored = storedCopy(response); // before anything lands: a response too large commits nothing
    const record = this.fenced(pk, 'leaseHeldNotCompleted', { nowEpochMs: now, token: leaseToken });
    if (writes) this.commitWrites(pk, writes, now, leaseToken);
    Object.assign(record, {
      status: RecordStatus.completed,
      response: stored,
      expiresAtEpochSeconds: expiryFromNow(now, ttlSeconds),
      updatedAtEpochMs: now,
    });
  }

  async markUnknown(pk: string, leaseToken: string): Promise<void> {
    const record = this.fenced(pk, 'leaseHeld', { nowEpochMs: this.clock(), token: leaseToken });
    Object.assign(record, {
      status: RecordStatus.unknown,
      expiresAtEpochSeconds: undefined,
      updatedAtEpochMs: this.clock(),
    });
  }

  async markAbandonedUnknown(pk: string, leaseToken: string): Promise<JournalRecord> {
    const now = this.clock();
    const record = this.fenced(pk, 'abandonedLease', { nowEpochMs: now, token: leaseToken });
    Object.assign(record, { status: RecordStatus.unknown, expiresAtEpochSeconds: undefined, updatedAtEpochMs: now });
    return copy(record);
  }

  async release(pk: string, leaseToken: string): Promise<void> {
    this.fenced(pk, 'leaseHeldNotCompleted', { nowEpochMs: this.clock(), token: leaseToken });
    this.records.delete(pk);
  }

  async holdUnique(hold: UniqueHold): Promise<void> {
    const claims = this.table(MEMORY_JOURNAL_TABLE);
    const now = this.clock();
    const item = heldClaimItem(hold, now);
    const key = this.keyOf(MEMORY_JOURNAL_TABLE, item);
    const held = claims.get(key);
    const found = guardedItemOf(held);
    const values = {
      nowEpochMs: now,
      token: hold.leaseToken,
      owner: hold.ownerPk,
      ownerCreatedAtEpochMs: hold.ownerCreatedAtEpochMs,
    };
    // As the DynamoDB journal decides it (unique-holds.ts): our own hold, a hold of our operation, or a stale holder
    // of another operation, not pinned, fenced out.
    const ours = JournalGuard.uniqueHeldBy(found, values);
    if (!ours && !JournalGuard.uniqueHoldable(found, values)) {
      const holdToken = found?.holdToken;
      if (holdToken === undefined || found?.pinned || !this.fencedStaleHolder(found?.claimedBy, holdToken, now))
        throw new UniqueConflictError(hold.claim.name, hold.claim.value, { ...held });
      claims.set(key, item);
      return;
    }
    // Taken back by its own operation, a pinned hold stays pinned.
    claims.set(key, found?.pinned ? { ...item, [ClaimAttribute.pinned]: true } : item);
  }

  async pinUnique(hold: UniqueHold): Promise<void> {
    const claims = this.table(MEMORY_JOURNAL_TABLE);
    const held = claims.get(this.keyOf(MEMORY_JOURNAL_TABLE, heldClaimItem(hold, 0)));
    if (!held || !JournalGuard.uniqueHeldBy(guardedItemOf(held), { nowEpochMs: this.clock(), token: hold.leaseToken }))
      throw new UniqueConflictError(hold.claim.name, hold.claim.value, held && { ...held });
    held[ClaimAttribute.pinned] = true;
  }

  async letGoUnique(hold: UniqueHold): Promise<void> {
    const claims = this.table(MEMORY_JOURNAL_TABLE);
    const key = this.keyOf(MEMORY_JOURNAL_TABLE, heldClaimItem(hold, 0));
    if (JournalGuard.uniqueHeldBy(guardedItemOf(claims.get(key)), { nowEpochMs: this.clock(), token: hold.leaseToken }))
      claims.delete(key);
  }

  /**
   * Whether the stale holder of a claim is out of the way: its record gone, or taken by another token since, with no
   * effect begun; or fenced now with a fresh token (`holdAbandoned`), as the DynamoDB journal does (unique-holds.ts).
   */
  private fencedStaleHolder(ownerPk: string | undefined, staleToken: string, nowEpochMs: number): boolean {
    if (ownerPk === undefined) return false;
    const owner = this.records.get(ownerPk);
    if (!owner) return true;
    if (owner.effectStarted || owner.status === RecordStatus.unknown) return false;
    if (owner.leaseToken !== staleToken) return true;
    if (!JournalGuard.holdAbandoned(owner, { nowEpochMs, token: staleToken })) return false;
    Object.assign(owner, { leaseToken: newLeaseToken(), updatedAtEpochMs: nowEpochMs });
    return true;
  }

  async get(pk: string): Promise<JournalRecord | undefined> {
    const record = this.records.get(pk);
    return record ? copy(record) : undefined;
  }

  async resolve(pk: string, resolution: Resolution): Promise<void> {
    const now = this.clock();
    const record = this.records.get(pk);
    if (!record || !JournalGuard.resolvable(record, { nowEpochMs: now }))
      throw new NotResolvableError(record ? copy(record) : undefined);
    if (resolution.outcome === 'released') {
      this.records.delete(pk);
      return;
    }
    Object.assign(record, {
      status: RecordStatus.completed,
      leaseToken: newLeaseToken(),
      response: storedCopy(resolution.response),
      expiresAtEpochSeconds: expiryFromNow(now, resolution.ttlSeconds),
      updatedAtEpochMs: now,
    });
  }

  async commitStaged(commit: StagedCommit): Promise<StagedCommitResult> {
    const now = this.clock();
    // Built and size-checked first, as DynamoDB would refuse it: a response that does not fit commits nothing.
    const { record } = stagedCommitItems(commit, now);
    const stored = storedCopy(commit.response);
    const existing = this.records.get(commit.pk);
    if (!JournalGuard.stagedCommitClaimable(existing, { nowEpochMs: now, fingerprint: commit.fingerprint }))
      return { kind: 'refused', record: copy(existing!) };
    this.commitWrites(commit.pk, commit.writes, now);
    this.records.set(commit.pk, { ...recordFromItem(record), response: stored });
    return { kind: 'committed' };
  }

  /** The record, if the named condition holds for it (as DynamoDB would decide the write); else `LeaseLostError`. */
  private fenced(pk: string, condition: JournalConditionName, values: GuardValues): MutableRecord {
    const record = this.records.get(pk);
    if (!record || !JournalGuard[condition](record, values))
      throw new LeaseLostError(record ? copy(record) : undefined);
    return record;
  }

  /** Applies the completion's writes all-or-nothing: every condition is checked before anything lands. */
  private commitWrites(pk: string, writes: CompletionWrites, now: number, leaseToken?: string): void {
    const journalTable = this.table(MEMORY_JOURNAL_TABLE);
    const claims = writes.uniqueClaims.map((claim) => ({ claim, item: uniqueItem(claim, pk, now) }));
    const taken = claims.find(
      ({ item }) =>
        !JournalGuard.itemAbsent(journalTable.get(this.keyOf(MEMORY_JOURNAL_TABLE, item)), { nowEpochMs: now }),
    );
    if (taken)
      throw new UniqueConflictError(
        taken.claim.name,
        taken.claim.value,
        journalTable.get(this.keyOf(MEMORY_JOURNAL_TABLE, taken.item)),
      );
    const held = (writes.heldClaims ?? []).map((claim) => this.keyOf(MEMORY_JOURNAL_TABLE, uniqueItem(claim, pk, now)));
    const lost = held.findIndex(
      (key) => !JournalGuard.uniqueHeldBy(guardedItemOf(journalTable.get(key)), { nowEpochMs: now, token: leaseToken }),
    );
    if (lost >= 0) {
      const claim = (writes.heldClaims ?? [])[lost];
      throw new UniqueConflictError(claim.name, claim.value, journalTable.get(held[lost]));
    }
    const staged = writes.staged.map((entry, index) => this.planStaged(entry, index));
    for (const { item } of claims) journalTable.set(this.keyOf(MEMORY_JOURNAL_TABLE, item), item);
    for (const key of held) {
      delete journalTable.get(key)?.[ClaimAttribute.holdToken];
      delete journalTable.get(key)?.[ClaimAttribute.pinned];
    }
    for (const event of writes.outbox) {
      const item = outboxItem(event, pk);
      journalTable.set(this.keyOf(MEMORY_JOURNAL_TABLE, item), item);
    }
    for (const apply of staged) apply();
  }

  private planStaged(entry: TransactItem, index: number): () => void {
    if (entry.Put) {
      const { TableName, Item, ConditionExpression } = entry.Put;
      const key = this.keyOf(TableName, Item);
      this.checkCondition(TableName, key, ConditionExpression, index);
      return () => this.table(TableName).set(key, structuredCloneOrSelf(Item));
    }
    if (entry.Delete) {
      const { TableName, Key, ConditionExpression } = entry.Delete;
      const key = this.keyOf(TableName, Key);
      this.checkCondition(TableName, key, ConditionExpression, index);
      return () => this.table(TableName).delete(key);
    }
    throw new InvalidOptionsError(
      'MemoryJournal applies staged Put and Delete items only; use DynamoDBJournal for Update and ConditionCheck',
    );
  }

  private checkCondition(tableName: string, key: string, condition: string | undefined, index: number): void {
    if (!condition) return;
    const exists = this.table(tableName).has(key);
    if (/^attribute_not_exists\(\s*[#\w]+\s*\)$/.test(condition.trim())) {
      if (exists) throw new WriteConflictError(index);
      return;
    }
    if (/^attribute_exists\(\s*[#\w]+\s*\)$/.test(condition.trim())) {
      if (!exists) throw new WriteConflictError(index);
      return;
    }
    throw new InvalidOptionsError(
      `MemoryJournal supports only attribute_exists/attribute_not_exists conditions, not: ${condition}`,
    );
  }

  private keyOf(tableName: string, item: Record<string, unknown>): string {
    const names = this.tableKeys[tableName] ?? ['pk', 'sk'];
    return JSON.stringify(names.filter((name) => item[name] !== undefined).map((name) => item[name]));
  }

  private table(name: string): Map<string, Record<string, unknown>> {
    let table = this.tables.get(name);
    if (!table) this.tables.set(name, (table = new Map()));
    return table;
  }
}

/** What DynamoDB would give back: the JSON round trip (dates become strings) within the same size limit. */
function storedCopy(response: unknown): { value: unknown } {
  return parseStored(responseJson(response));
}

function copy(record: MutableRecord): JournalRecord {
  return structuredCloneOrSelf(record);
}

/** Deep copy so callers never alias stored state; values that cannot be cloned are kept as they are. */
function structuredCloneOrSelf<T>(value: T): T {
  try {
    return structuredClone(value);
  } catch {
    return value;
  }
}

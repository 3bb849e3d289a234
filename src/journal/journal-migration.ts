import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import {
  assertKnownOptions,
  InvalidOptionsError,
  JournalUnavailableError,
  LeaseLostError,
  readClient,
  readTableName,
} from '../core/index.js';
import { claimParameters, JournalCondition } from './conditions.js';
import { isConditionFailure, ItemCalls, oldItemOf, toJournalError } from './item-calls.js';
import type { JournalRecord, ReserveRequest, ReserveResult } from './journal.js';
import { recordFromItem, reservationItem } from './record-item.js';
import { expiryFromNow, newLeaseToken } from './record-lifetime.js';
import { chunkPk, RecordAttribute, RecordStatus, type JournalItem } from './schema.js';

/**
 * The move from a single-Region journal to a multi-Region one (`migrateFrom` on
 * `DynamoDBJournal`), without a window in which a request the old journal completed, or is
 * running, runs again.
 *
 * While the window is open, the attempt that holds a key in the new journal (a fresh
 * reservation, or a takeover) first settles the key in the old table with one conditional write:
 * - the old table has nothing live for the key: a **forwarding record** is put there (an
 *   `IN_PROGRESS` record, with the request's fingerprint, whose lease lasts `ttlSeconds`, and
 *   `movedTo`), so code still on the old journal during the deploy answers 409 (or 422) instead of
 *   running the request; the new journal decides from then on;
 * - the old record is completed: it is copied into the new journal (chunks included) and decides
 *   there (replay, or 422 for another payload);
 * - an old attempt holds a live lease: the new reservation is given back and the old record answers
 *   (409 in progress, or the wait policy polls it);
 * - the old record's lease ended, or it is `UNKNOWN`: it is taken over in the old table (the
 *   `takeOver` condition, on the token read) and becomes the forwarding record, which keeps the
 *   state it had (`movedStatus`, `movedLeaseToken`, `movedLeaseUntil`, `movedExpiresAt`) until the
 *   state is copied into the new journal; there the usual takeover rules decide (run again if no
 *   effect began, else `recover` or `UNKNOWN`). A crash between the two writes loses nothing: the
 *   next attempt finds the kept state and copies it.
 *
 * Every write is one conditional single-item write, on either table.
 */

/** The attribute that marks a forwarding record in the old table: the new journal's table name. */
const MOVED_TO = 'movedTo';
/** The attributes a forwarding record keeps of the record it replaced, until the state is in the new journal. */
const KEPT = {
  status: 'movedStatus',
  leaseToken: 'movedLeaseToken',
  leaseUntil: 'movedLeaseUntil',
  expiresAt: 'movedExpiresAt',
} as const;
/** A kept `expiresAt` of 0: the record had none (it was `UNKNOWN`, or an effect had begun). */
const NO_EXPIRY = 0;
/** How often the old record may change under the settling writes before the attempt gives up (503). */
const MAX_SETTLE_ROUNDS = 4;
const STATUS_NAME = { '#status': RecordAttribute.status };

/** What the old table said about a key. */
type Settled =
  | { readonly kind: 'forwarded' }
  | { readonly kind: 'import'; readonly item: JournalItem; readonly fromForwarding?: string }
  | { readonly kind: 'live'; readonly item: JournalItem };

/** Where the single-Region journal of a migration lives, and until when it is consulted. */
export interface JournalMigrationOptions {
  /** The single-Region journal table (same schema: `pk`, the same record attributes). */
  readonly tableName: string;
  /**
   * Client that reaches it (its own Region).
   * @default the journal's client
   */
  readonly client?: DynamoDBClient | DynamoDBDocumentClient;
  /**
   * End of the cut-over window: from then on the old table is not consulted. Set it past the last
   * old record's `expiresAt` (the deploy time plus `ttlSeconds`), and keep records that are
   * `UNKNOWN` there in mind: resolve them first, or keep the window open.
   * @default undefined (consulted until the option is removed)
   */
  readonly until?: Date;
}

/**
 * The migration of a multi-Region `DynamoDBJournal` from its `migrateFrom` option, validated when
 * the journal is created; undefined without one.
 */
export function journalMigrationFor(
  owner: string,
  options: JournalMigrationOptions | undefined,
  journal: Omit<JournalMigrationParts, 'from' | 'untilEpochMs'> & {
    readonly multiRegion?: 'strong';
    readonly toClient: DynamoDBClient | DynamoDBDocumentClient;
  },
): JournalMigration | undefined {
  if (options === undefined) return undefined;
  if (!journal.multiRegion) {
    throw new InvalidOptionsError(
      `${owner}: option 'migrateFrom' moves a single-Region journal to a multi-Region one and needs multiRegion: strongConsistency()`,
    );
  }
  assertKnownOptions(`${owner} (migrateFrom)`, options, ['tableName', 'client', 'until']);
  const tableName = readTableName(owner, 'migrateFrom.tableName', options.tableName, undefined);
  if (tableName === undefined)
    throw new InvalidOptionsError(`${owner}: option 'migrateFrom.tableName' must name the single-Region journal table`);
  const client =
    readClient(owner, 'migrateFrom.client', options.client, 'a DynamoDBClient or DynamoDBDocumentClient') ??
    journal.toClient;
  if (tableName === journal.toTableName && client === journal.toClient)
    throw new InvalidOptionsError(`${owner}: option 'migrateFrom' names this journal's own table`);
  const until = options.until;
  if (until !== undefined && !(until instanceof Date && Number.isFinite(until.getTime())))
    throw new InvalidOptionsError(`${owner}: option 'migrateFrom.until' must be a valid Date`);
  return new JournalMigration({
    from: new ItemCalls(client, tableName),
    to: journal.to,
    toTableName: journal.toTableName,
    clock: journal.clock,
    untilEpochMs: until?.getTime(),
    attach: journal.attach,
    release: journal.release,
  });
}

/** What a {@link JournalMigration} needs: both tables' calls, the clock, and the end of the window. */
export interface JournalMigrationParts {
  readonly from: ItemCalls;
  readonly to: ItemCalls;
  readonly toTableName: string;
  readonly clock: () => number;
  readonly untilEpochMs?: number;
  /** Reassembles a chunked response from the new journal's table. */
  readonly attach: (item: JournalItem, record: JournalRecord) => Promise<JournalRecord>;
  /** Gives back a reservation of the new journal. */
  readonly release: (pk: string, leaseToken: string) => Promise<void>;
}

/**
 * Settles keys between the old single-Region journal and the new one while the window is open.
 *
 * @example
 * const migration = new JournalMigration({ from, to, toTableName, clock, attach, release });
 * const result = await migration.afterReservation(request, reserved);
 */
export class JournalMigration {
  constructor(private readonly parts: JournalMigrationParts) {}

  /** True until `until`: the old table is consulted. */
  isOpen(): boolean {
    return this.parts.untilEpochMs === undefined || this.parts.clock() < this.parts.untilEpochMs;
  }

  /**
   * After a fresh reservation in the new journal: settles the key in the old table, and answers
   * with the old record's state when it has one (the reservation then gives way to it).
   */
  async afterReservation(
    request: ReserveRequest,
    reserved: Extract<ReserveResult, { reserved: true }>,
  ): Promise<ReserveResult> {
    const mine = reserved.record;
    const settled = await this.settle(request.pk, request.fingerprint, request.ttlSeconds);
    if (settled.kind === 'forwarded') return reserved;
    if (settled.kind === 'live') {
      await this.parts.release(request.pk, mine.leaseToken);
      return { reserved: false, record: recordFromItem(settled.item) };
    }
    const record = await this.bringOver(settled, {
      ConditionExpression: JournalCondition.leaseHeldNotCompleted,
      ExpressionAttributeNames: STATUS_NAME,
      ExpressionAttributeValues: { ':mine': mine.leaseToken, ':completed': RecordStatus.completed },
    });
    return { reserved: false, record };
  }

  /**
   * Before a takeover in the new journal: the record there may be a reservation whose attempt
   * crashed before it settled the key in the old table. Settles it now; when the old table has a
   * state to bring over, it replaces the record taken over and `LeaseLostError` carries it, so the
   * engine decides again on it.
   */
  async beforeTakeover(pk: string, expectedToken: string): Promise<void> {
    const current = await this.parts.to.get('get', { pk }).catch((error: unknown) => {
      throw toJournalError(error, 'get');
    });
    if (!current) return;
    const settled = await this.settle(pk, String(current[RecordAttribute.fingerprint]), ttlOf(current, this.now()));
    if (settled.kind === 'forwarded') return;
    if (settled.kind === 'live') throw new LeaseLostError(recordFromItem(settled.item));
    const record = await this.bringOver(settled, {
      ConditionExpression: JournalCondition.takeOver,
      ExpressionAttributeNames: STATUS_NAME,
      ExpressionAttributeValues: {
        ':old': expectedToken,
        ':nowMs': this.now(),
        ':inProgress': RecordStatus.inProgress,
        ':unknown': RecordStatus.unknown,
      },
    });
    throw new LeaseLostError(record);
  }

  /** The old table's record for a key the new journal does not hold, unless it forwards to the new journal. */
  async previousRecord(pk: string): Promise<JournalRecord | undefined> {
    const item = await this.parts.from.get('get', { pk }).catch((error: unknown) => {
      throw toJournalError(error, 'get');
    });
    if (!item || item[MOVED_TO] !== undefined) return undefined;
    return recordFromItem(item);
  }

  /** One conditional write to the old table per round; the old record returned decides the next. */
  private async settle(pk: string, fingerprint: string, ttlSeconds: number): Promise<Settled> {
    for (let round = 0; round < MAX_SETTLE_ROUNDS; round++) {
      const now = this.now();
      let found: JournalItem | undefined;
      try {
        await this.parts.from.put('migrate', this.forwardingItem(pk, fingerprint, ttlSeconds, now), {
          ConditionExpression: JournalCondition.claimable,
          ...claimParameters(now),
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        });
        return { kind: 'forwarded' };
      } catch (error) {
        if (!isConditionFailure(error)) throw toJournalError(error, 'migrate');
        found = oldItemOf(error);
      }
      if (!found) continue;
      if (found[MOVED_TO] !== undefined) {
        const kept = keptState(found);
        return kept
          ? { kind: 'import', item: kept, fromForwarding: String(found[RecordAttribute.leaseToken]) }
          : { kind: 'forwarded' };
      }
      // Fails closed on a record the guard cannot read: nothing may run over it.
      const record = recordFromItem(found);
      if (record.status === RecordStatus.completed) return { kind: 'import', item: found };
      if (record.status === RecordStatus.inProgress && record.leaseUntilEpochMs >= now)
        return { kind: 'live', item: found };
      const taken = await this.forward(found, ttlSeconds, now);
      if (taken) return { kind: 'import', item: taken.item, fromForwarding: taken.forwardingToken };
    }
    throw new JournalUnavailableError(
      `The single-Region journal's record for ${pk} kept changing during the migration`,
    );
  }

  /**
   * Takes over an abandoned or `UNKNOWN` old record (fenced on the token read) and turns it into the
   * forwarding record, keeping its state; the state before the write is what moves. Undefined when
   * the record changed since it was read.
   */
  private async forward(found: JournalItem, ttlSeconds: number, now: number) {
    const forwardingToken = newLeaseToken();
    try {
      const before = await this.parts.from.update(
        'migrate',
        { pk: found[RecordAttribute.pk] },
        {
          UpdateExpression:
            `SET ${KEPT.status} = #status, ${KEPT.leaseToken} = leaseToken, ${KEPT.leaseUntil} = leaseUntil, ` +
            `${KEPT.expiresAt} = if_not_exists(expiresAt, :noExpiry), #status = :inProgress, leaseToken = :new, ` +
            `leaseUntil = :until, expiresAt = :expiresAt, ${MOVED_TO} = :to, updatedAt = :nowMs`,
          ConditionExpression: JournalCondition.takeOver,
          ExpressionAttributeNames: STATUS_NAME,
          ExpressionAttributeValues: {
            ':old': found[RecordAttribute.leaseToken],
            ':nowMs': now,
            ':inProgress': RecordStatus.inProgress,
            ':unknown': RecordStatus.unknown,
            ':new': forwardingToken,
            ':noExpiry': NO_EXPIRY,
            ':until': now + ttlSeconds * 1000,
            ':expiresAt': expiryFromNow(now, ttlSeconds),
            ':to': this.parts.toTableName,
          },
          ReturnValues: 'ALL_OLD',
        },
      );
      return before ? { item: before, forwardingToken } : undefined;
    } catch (error) {
      if (isConditionFailure(error)) return undefined;
      throw toJournalError(error, 'migrate');
    }
  }

  /**
   * Writes the old state into the new journal over the record there (on `condition`), chunks first,
   * then lets the forwarding record drop the state it kept. Returns the record as the new journal now holds it.
   */
  private async bringOver(
    settled: Extract<Settled, { kind: 'import' }>,
    condition: {
      ConditionExpression: string;
      ExpressionAttributeNames: Record<string, string>;
      ExpressionAttributeValues: Record<string, unknown>;
    },
  ): Promise<JournalRecord> {
    const { item } = settled;
    const pk = String(item[RecordAttribute.pk]);
    const chunkCount =
      item[RecordAttribute.responseEncoding] === 'chunked' ? Number(item[RecordAttribute.responseChunks] ?? 0) : 0;
    let landed = item;
    try {
      if (chunkCount > 0) {
        const keys = Array.from({ length: chunkCount }, (_, i) => ({
          pk: chunkPk(pk, String(item[RecordAttribute.leaseToken]), i),
        }));
        await this.parts.to.putAll('migrate', await this.parts.from.getAll('migrate', keys));
      }
      await this.parts.to.put('migrate', item, { ...condition, ReturnValuesOnConditionCheckFailure: 'ALL_OLD' });
    } catch (error) {
      if (!isConditionFailure(error)) throw toJournalError(error, 'migrate');
      // The new journal's record moved on meanwhile (an operator, another attempt): it decides.
      const current = oldItemOf(error);
      if (!current) throw new LeaseLostError(undefined);
      landed = current;
    }
    if (settled.fromForwarding !== undefined) await this.dropKeptState(pk, settled.fromForwarding);
    return this.parts.attach(landed, recordFromItem(landed));
  }

  /** The state now lives in the new journal: the forwarding record stops carrying it (a failure only means a later copy of the same state). */
  private async dropKeptState(pk: string, forwardingToken: string): Promise<void> {
    try {
      await this.parts.from.update(
        'migrate',
        { pk },
        {
          UpdateExpression: `REMOVE ${Object.values(KEPT).join(', ')}`,
          ConditionExpression: JournalCondition.leaseHeld,
          ExpressionAttributeValues: { ':mine': forwardingToken },
        },
      );
    } catch (error) {
      if (!isConditionFailure(error)) throw toJournalError(error, 'migrate');
    }
  }

  private forwardingItem(pk: string, fingerprint: string, ttlSeconds: number, now: number): JournalItem {
    const ttlMs = ttlSeconds * 1000;
    // A reservation whose lease lasts as long as the key is remembered: old code meets a request in progress.
    return {
      ...reservationItem({ pk, fingerprint, leaseMs: ttlMs, ttlSeconds }, now),
      [MOVED_TO]: this.parts.toTableName,
    };
  }

  private now(): number {
    return this.parts.clock();
  }
}

/** The record a forwarding record replaced, rebuilt from what it kept; undefined once it is in the new journal. */
function keptState(forwarding: JournalItem): JournalItem | undefined {
  if (forwarding[KEPT.status] === undefined) return undefined;
  const item: JournalItem = { ...forwarding };
  item[RecordAttribute.status] = forwarding[KEPT.status];
  item[RecordAttribute.leaseToken] = forwarding[KEPT.leaseToken];
  item[RecordAttribute.leaseUntil] = forwarding[KEPT.leaseUntil];
  if (forwarding[KEPT.expiresAt] === NO_EXPIRY) delete item[RecordAttribute.expiresAt];
  else item[RecordAttribute.expiresAt] = forwarding[KEPT.expiresAt];
  for (const name of [...Object.values(KEPT), MOVED_TO]) delete item[name];
  return item;
}

/** A day, the guards' default `ttlSeconds`: how long a forwarding record set at a takeover lasts when the record has no expiry. */
const DEFAULT_TTL_SECONDS = 86_400;

/** The `ttlSeconds` left to a record of the new journal, as far as its item tells; a day when it has no expiry. */
function ttlOf(item: JournalItem, nowEpochMs: number): number {
  const expiresAt = item[RecordAttribute.expiresAt];
  if (typeof expiresAt !== 'number') return DEFAULT_TTL_SECONDS;
  return Math.max(60, expiresAt - Math.floor(nowEpochMs / 1000));
}

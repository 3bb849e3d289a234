import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import {
  assertKnownOptions,
  readClient,
  readFunction,
  readTableName,
  IdemkitEnvironment,
  InvalidOptionsError,
  LeaseLostError,
  MultiRegionUnsupportedError,
  NotResolvableError,
  OutboxTooLargeError,
  readOneOf,
} from '../core/index.js';
import { completionTransaction, completionUpdate, transactionToken } from './completion-writes.js';
import { claimParameters, guardedItemOf, JournalCondition, JournalGuard } from './conditions.js';
import { classifyCancellation } from './dynamodb-errors.js';
import { commitStagedOnDynamoDB } from './staged-commit.js';
import { isConditionFailure, ItemCalls, oldItemOf, toJournalError, type JournalOperation } from './item-calls.js';
import type {
  Completion,
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
import type { JournalMigration, JournalMigrationOptions } from './journal-migration.js';
import type { MultiRegionMode } from './multi-region-mode.js';
import type { SingleItemCompletion } from './single-item-completion.js';
import { isItemTooLarge } from './item-size.js';
import { expiryFromNow, newLeaseToken } from './record-lifetime.js';
import { RecordAttribute, RecordStatus, type JournalItem } from './schema.js';
import { encodeResponse, ResponseChunks } from './stored-response.js';
import { boundThrottledRetries } from './throttled-retries.js';
import {
  holdUniqueOnDynamoDB,
  letGoUniqueOnDynamoDB,
  makeHoldsPermanentOnDynamoDB,
  pinUniqueOnDynamoDB,
} from './unique-holds.js';

const OWNER = 'DynamoDBJournal';
/** The `#status` placeholder (`status` is a DynamoDB reserved word). */
const STATUS_NAME = { '#status': RecordAttribute.status };
const CLIENT_KINDS = 'a DynamoDBClient or DynamoDBDocumentClient';

/** Options of {@link DynamoDBJournal}. */
export interface DynamoDBJournalOptions {
  /**
   * Name of the journal table (partition key `pk`, TTL on `expiresAt`).
   * @default process.env.IDEMKIT_TABLE_NAME (set by the CDK constructs that take a journal), read when the journal
   *   is first used if it is not set when the journal is built: a module that builds its journal at load time
   *   can be imported by a test before the variable is set. Used without either, the journal throws
   *   `InvalidOptionsError`.
   */
  readonly tableName?: string;
  /**
   * A `DynamoDBClient` or `DynamoDBDocumentClient`. Yours is used as it is configured, with one
   * middleware added for the journal's own calls: a throttled journal call gets at most one SDK
   * attempt before the handler's outcome exists, two when it settles one (see docs/operations.md,
   * "Throttling"), instead of the client's `maxAttempts`; your other calls and other errors keep your
   * client's retries. A client built with `cacheMiddleware: true` must not have sent a request before
   * the journal is built, or its resolved handlers go on without that bound.
   * @default a new DynamoDBClient from the environment, with `cacheMiddleware: true`: the SDK then
   *   resolves each command's middleware stack once instead of on every call, about a quarter of the
   *   guard's client-side CPU per request (bench/RESULTS.md). Middleware must then be added before the
   *   journal's first call, as a guard's `tracer` is (when the guard is built).
   */
  readonly client?: DynamoDBClient | DynamoDBDocumentClient;
  /**
   * Epoch milliseconds now.
   * @default Date.now
   */
  readonly clock?: () => number;
  /**
   * `strongConsistency()` from `idemkit/multi-region`, for a DynamoDB global table with
   * multi-Region strong consistency (MRSC), the one journal of an API served from several Regions:
   * every write is a single-item conditional write (completion is one fenced `UpdateItem` carrying
   * the outbox events), cross-Region write conflicts are retried within a bound, and `stage()`,
   * `claimUnique()` and `effects: 'staged-only'` are refused with `MultiRegionUnsupportedError`
   * (MRSC has no transactions). See docs/multi-region.md.
   * @default undefined (a single-Region table)
   * @example new DynamoDBJournal({ tableName: 'payments-journal', multiRegion: strongConsistency() })
   */
  readonly multiRegion?: MultiRegionMode;
  /**
   * The single-Region journal this multi-Region one replaces, while its records live: a key this
   * journal has not settled is settled in that table first (one conditional write per new key), so
   * a request the old journal completed replays, one it is running answers 409, and code still on
   * the old journal during the deploy cannot run a key this one holds. Only with
   * `multiRegion: strongConsistency()`. See docs/multi-region.md ("Migrating from a single-Region journal").
   * @default undefined (no migration)
   * @example
   * new DynamoDBJournal({
   *   tableName: 'payments-journal-global',
   *   multiRegion: strongConsistency(),
   *   migrateFrom: { tableName: 'payments-journal', until: new Date('2027-01-15T00:00:00Z') },
   * })
   */
  readonly migrateFrom?: JournalMigrationOptions;
  /**
   * How a reservation meets a key that may already be there.
   * - `'put-first'`: one conditional `PutItem` that returns the existing item on conflict. A new
   *   key costs one write; a retry costs a refused write, which DynamoDB bills like a write of the
   *   larger of the stored and the new item (a record holding a 4 KB response: 4–5 write units).
   * - `'read-first'`: a strongly consistent `GetItem` first; only a key found absent or claimable is
   *   then claimed by the same conditional `PutItem` (two callers racing on a miss: one wins, the
   *   other meets the winner's record as under `'put-first'`). A retry costs one read unit per 4 KB
   *   instead of one write unit per 1 KB; a new key costs one read unit and one more round trip.
   *
   * On-demand in us-east-1 (write unit $0.625, read unit $0.125 per million) `'read-first'` costs
   * less once retries and duplicates are more than about 20 % of the attempts that reach the
   * journal with records under 1 KB, and more than about 5 % with records of 3–4 KB (stored
   * responses of a few KB); see the README's cost table. Replays, 409s and 422s then cost no write.
   * @default 'put-first'
   * @example new DynamoDBJournal({ tableName: 'payments-journal', reservation: 'read-first' })
   */
  readonly reservation?: 'put-first' | 'read-first';
}

/** Names of {@link DynamoDBJournalOptions}, stated once, for the unknown-option check. */
const OPTION_NAMES = [
  'tableName',
  'client',
  'clock',
  'multiRegion',
  'migrateFrom',
  'reservation',
] as const satisfies readonly (keyof DynamoDBJournalOptions)[];

/** The journal's table and what reaches it, once its name is known. */
interface JournalTable {
  readonly name: string;
  readonly calls: ItemCalls;
  readonly chunks: ResponseChunks;
  readonly migration: JournalMigration | undefined;
}

/**
 * The idempotency journal on DynamoDB. Reservation is one conditional `PutItem` that returns
 * the existing item on conflict; every later write is fenced on the caller's lease token.
 *
 * @example
 * const journal = new DynamoDBJournal(); // the table named by IDEMKIT_TABLE_NAME
 * const other = new DynamoDBJournal({ tableName: 'payments-journal' });
 */
export class DynamoDBJournal implements Journal {
  readonly multiRegion?: 'strong';
  /** How a reservation meets an existing key (see {@link DynamoDBJournalOptions.reservation}). */
  readonly reservation: 'put-first' | 'read-first';
  private readonly clock: () => number;
  private readonly client: DynamoDBClient | DynamoDBDocumentClient;
  private readonly tableOption: string | undefined;
  private readonly migrateFrom: JournalMigrationOptions | undefined;
  private readonly mode: MultiRegionMode | undefined;
  private table?: JournalTable;
  private traced = false;

  constructor(options: DynamoDBJournalOptions = {}) {
    assertKnownOptions(OWNER, options, OPTION_NAMES);
    this.tableOption = readTableName(OWNER, 'tableName', options.tableName, undefined);
    this.clock = readFunction(OWNER, 'clock', options.clock, Date.now);
    // A DocumentClient shares its base client's middleware stack, so low-level commands sent through it behave alike.
    this.client =
      readClient(OWNER, 'client', options.client, CLIENT_KINDS) ?? new DynamoDBClient({ cacheMiddleware: true });
    // Before any call: a storm on a hot key must not be multiplied by the SDK's retries.
    boundThrottledRetries(this.client);
    this.mode = readMultiRegionMode(options.multiRegion);
    this.multiRegion = this.mode?.consistency;
    this.reservation = readOneOf(OWNER, 'reservation', options.reservation, 'put-first', ['put-first', 'read-first']);
    this.migrateFrom = options.migrateFrom;
    // A table named by now is set up now, `migrateFrom` checked against it. Without a name the journal waits for its
    // first use: a handler module builds its journal when it loads, and a test imports it before setting the variable.
    if (this.nameNow() !== undefined) this.opened();
  }

  /**
   * Name of the journal table: the `tableName` option, else `IDEMKIT_TABLE_NAME` (read when first needed).
   * @throws InvalidOptionsError when neither names a table
   */
  get tableName(): string {
    return this.opened().name;
  }

  private get calls(): ItemCalls {
    return this.opened().calls;
  }

  private get chunks(): ResponseChunks {
    return this.opened().chunks;
  }

  private get migration(): JournalMigration | undefined {
    return this.opened().migration;
  }

  /** The table's name as things stand: the option, else the environment's when it can name a table. */
  private nameNow(): string | undefined {
    const name = this.tableOption ?? process.env[IdemkitEnvironment.tableName];
    return name !== undefined && name.length >= 3 ? name : undefined;
  }

  /** The table and what reaches it, set up once, when its name is first known. */
  private opened(): JournalTable {
    if (this.table) return this.table;
    const name = this.nameNow();
    if (name === undefined) {
      const variable = process.env[IdemkitEnvironment.tableName];
      throw new InvalidOptionsError(
        `${OWNER} needs a table name of at least 3 characters: pass the 'tableName' option or set ` +
          `${IdemkitEnvironment.tableName} (the CDK constructs that take a journal set it); ` +
          (variable === undefined ? 'it is not set' : `it is '${variable}'`),
      );
    }
    const calls = this.mode ? this.mode.itemCalls(this.client, name) : new ItemCalls(this.client, name);
    const chunks = new ResponseChunks(calls);
    if (this.migrateFrom !== undefined && !this.mode)
      throw new InvalidOptionsError(
        `${OWNER}: option 'migrateFrom' moves a single-Region journal to a multi-Region one and needs multiRegion: strongConsistency()`,
      );
    const migration = this.mode?.migration(OWNER, this.migrateFrom, {
      multiRegion: this.multiRegion,
      to: calls,
      toTableName: name,
      toClient: this.client,
      clock: this.clock,
      attach: (item, record) => chunks.attach(item, record),
      release: (pk, leaseToken) => this.release(pk, leaseToken),
    });
    this.table = { name, calls, chunks, migration };
    return this.table;
  }

  traceWith(tracer: { captureAWSv3Client<T>(client: T): T }): void {
    if (this.traced) return;
    this.traced = true;
    tracer.captureAWSv3Client(this.client);
  }

  async reserve(request: ReserveRequest): Promise<ReserveResult> {
    // An attempt's first call: a missing table name is reported as itself, before a DynamoDB failure could wrap it.
    this.opened();
    const reserved = await this.reserveHere(request);
    if (!reserved.reserved || !this.migration?.isOpen()) return reserved;
    return this.migration.afterReservation(request, reserved);
  }

  private async reserveHere(request: ReserveRequest): Promise<ReserveResult> {
    const now = this.clock();
    if (this.reservation === 'read-first') {
      const found = await this.readBeforeReserving(request, now);
      if (found) return found;
    }
    const item = reservationItem(request, now);
    try {
      const old = await this.calls.put('reserve', item, {
        ConditionExpression: JournalCondition.claimable,
        ...claimParameters(now),
        ReturnValues: 'ALL_OLD',
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      });
      return { reserved: true, record: recordFromItem(item), replacedExpired: old !== undefined };
    } catch (error) {
      const existing = isConditionFailure(error) ? oldItemOf(error) : undefined;
      if (!existing) throw toJournalError(error, 'reserve');
      const record = recordFromItem(existing);
      // The SDK resent a put that had landed (its answer was lost): the record found is our own.
      if (record.leaseToken === item.leaseToken) return { reserved: true, record, replacedExpired: false };
      return this.refused(request, existing, record);
    }
  }

  /**
   * The read of a `'read-first'` reservation: the existing record when it holds the key (the
   * reservation is refused without a write), undefined when the key is absent or claimable and the
   * conditional put must decide.
   */
  private async readBeforeReserving(request: ReserveRequest, nowEpochMs: number): Promise<ReserveResult | undefined> {
    let existing: JournalItem | undefined;
    try {
      existing = await this.calls.get('reserve', { pk: request.pk });
    } catch (error) {
      throw toJournalError(error, 'reserve');
    }
    // The item is weighed as the put's condition will weigh it, before it is read as a record: an expired record the
    // guard cannot read (a completed one whose response does not decode, say) is claimable, as put-first finds it.
    if (!existing || JournalGuard.claimable(guardedItemOf(existing), { nowEpochMs })) return undefined;
    return this.refused(request, existing, recordFromItem(existing));
  }

  /** A reservation that met a record holding the key: a replayable outcome comes with its chunks. */
  private async refused(request: ReserveRequest, existing: JournalItem, record: JournalRecord): Promise<ReserveResult> {
    const replayable = record.status === RecordStatus.completed && record.fingerprint === request.fingerprint;
    return { reserved: false, record: replayable ? await this.chunks.attach(existing, record) : record };
  }

  async takeOver({ pk, expectedToken, leaseMs, durableExecutionArn }: TakeOverRequest): Promise<JournalRecord> {
    if (this.migration?.isOpen()) await this.migration.beforeTakeover(pk, expectedToken);
    const now = this.clock();
    const token = newLeaseToken();
    // The owner changes with the lease: the previous execution's replays must not continue under the new token.
    const owner =
      durableExecutionArn === undefined
        ? { expression: ` REMOVE ${RecordAttribute.durableExecution}`, values: {} }
        : { expression: `, ${RecordAttribute.durableExecution} = :owner`, values: { ':owner': durableExecutionArn } };
    try {
      // Back to IN_PROGRESS: while the new owner holds its lease, an UNKNOWN record must not be taken again.
      const out = await this.fencedUpdate('takeOver', {
        Key: { pk },
        UpdateExpression:
          'SET leaseToken = :new, leaseUntil = :until, attempt = attempt + :one, updatedAt = :nowMs, #status = :inProgress' +
          owner.expression,
        ConditionExpression: JournalCondition.takeOver,
        ExpressionAttributeNames: STATUS_NAME,
        ExpressionAttributeValues: {
          ...owner.values,
          ':new': token,
          ':old': expectedToken,
          ':until': now + leaseMs,
          ':one': 1,
          ':nowMs': now,
          ':unknown': RecordStatus.unknown,
          ':inProgress': RecordStatus.inProgress,
        },
        ReturnValues: 'ALL_NEW',
      });
      return recordFromItem(out);
    } catch (error) {
      // The SDK resent an update that had landed: the record holds the token we just wrote.
      if (error instanceof LeaseLostError && error.existing?.leaseToken === token) return error.existing;
      throw error;
    }
  }

  async heartbeat(pk: string, leaseToken: string, leaseMs: number): Promise<number> {
    const now = this.clock();
    const leaseUntil = now + leaseMs;
    await this.fenced('heartbeat', pk, leaseToken, 'SET leaseUntil = :until, updatedAt = :nowMs', {
      ':until': leaseUntil,
      ':nowMs': now,
    });
    return leaseUntil;
  }

  async beginEffect(pk: string, leaseToken: string, effectName: string): Promise<void> {
    // The record stops expiring: once an effect may have happened, only an outcome or an operator may end it.
    await this.fenced(
      'beginEffect',
      pk,
      leaseToken,
      'SET effectStarted = :true, effectName = :name, updatedAt = :nowMs REMOVE expiresAt',
      {
        ':true': true,
        ':name': effectName,
        ':nowMs': this.clock(),
      },
    );
  }

  async recordEvidence(pk: string, leaseToken: string, evidence: Evidence): Promise<void> {
    const entries = Object.entries(evidence);
    if (entries.length === 0) return;
    const names: Record<string, string> = {};
    const values: Record<string, unknown> = { ':nowMs': this.clock() };
    const sets = entries.map(([name, value], i) => {
      names[`#e${i}`] = name;
      values[`:e${i}`] = value;
      return `evidence.#e${i} = :e${i}`;
    });
    await this.fenced('recordEvidence', pk, leaseToken, `SET ${sets.join(', ')}, updatedAt = :nowMs`, values, names);
  }

  async complete(request: Completion): Promise<void> {
    const { pk, leaseToken, response, ttlSeconds, writes } = request;
    const now = this.clock();
    if (this.multiRegion) return this.completeSingleItem(request);
    const encoded = encodeResponse(response);
    await this.chunks.write(pk, leaseToken, encoded, expiryFromNow(now, ttlSeconds));
    const completion = completionUpdate(pk, encoded, now, ttlSeconds, { kind: 'lease', leaseToken });
    const hasWrites =
      writes !== undefined &&
      writes.staged.length + writes.uniqueClaims.length + writes.outbox.length + (writes.heldClaims?.length ?? 0) > 0;
    if (!hasWrites) {
      try {
        await this.fencedUpdate('complete', completion);
      } catch (error) {
        if (!isOwnCompletion(error, leaseToken)) throw error;
      }
      return;
    }
    const recordUpdate = { TableName: this.tableName, ...completion, ReturnValuesOnConditionCheckFailure: 'ALL_OLD' };
    const items = completionTransaction({
      tableName: this.tableName,
      recordWrite: { Update: recordUpdate as NonNullable<TransactItem['Update']> },
      pk,
      writes,
      nowEpochMs: now,
      leaseToken,
    });
    try {
      // The token makes an SDK resend of a transaction that landed a no-op instead of a conflict.
      await this.calls.transactWrite('complete', items, transactionToken(pk, leaseToken));
    } catch (error) {
      const cause = classifyCancellation(error, { tableName: this.tableName, items, writes });
      if (!isOwnCompletion(cause, leaseToken)) throw cause;
    }
  }

  /**
   * A multi-Region completion: chunks first (rule 6); held claims pinned unless the effect already
   * pinned them, so no write after the record's can decide whether they stay refused; then one
   * fenced `UpdateItem` with the outcome and the events; then the claims made permanent.
   */
  private async completeSingleItem({ pk, leaseToken, response, ttlSeconds, writes }: Completion): Promise<void> {
    const now = this.clock();
    const { completion: single } = this.mode!;
    const completion = single.layout(encodeResponse(response), writes);
    await this.chunks.write(pk, leaseToken, completion.encoded, expiryFromNow(now, ttlSeconds));
    if (!writes?.heldClaimsPinned)
      for (const claim of writes?.heldClaims ?? []) await pinUniqueOnDynamoDB(this.calls, claim, leaseToken);
    try {
      await this.fencedUpdate('complete', single.update(pk, completion, now, ttlSeconds, leaseToken));
    } catch (error) {
      if (!isOwnCompletion(error, leaseToken)) throw await this.refusedCompletion(pk, completion, error);
    }
    await makeHoldsPermanentOnDynamoDB(this.calls, writes?.heldClaims ?? [], leaseToken);
  }

  /**
   * The error of a multi-Region completion DynamoDB refused: when the record, its events and its
   * response outgrew the item (its own attributes, evidence included, took more than they are
   * kept), the events did not fit after all, in the room the record read now leaves them.
   */
  private async refusedCompletion(pk: string, completion: SingleItemCompletion, error: unknown): Promise<unknown> {
    const cause = (error as { cause?: unknown }).cause;
    if (completion.outboxJson === undefined || !isItemTooLarge(cause)) return error;
    const record = await this.calls.get('get', { pk }).catch(() => undefined);
    if (!record) return error;
    const { completion: single } = this.mode!;
    const eventBytes = single.eventsBytes(completion.outboxJson);
    return new OutboxTooLargeError(eventBytes, single.roomLeft(record, completion.encoded), { cause });
  }

  async markUnknown(pk: string, leaseToken: string): Promise<void> {
    await this.fenced(
      'markUnknown',
      pk,
      leaseToken,
      'SET #status = :unknown, updatedAt = :nowMs REMOVE expiresAt',
      {
        ':unknown': RecordStatus.unknown,
        ':nowMs': this.clock(),
      },
      STATUS_NAME,
    );
  }

  async markAbandonedUnknown(pk: string, leaseToken: string): Promise<JournalRecord> {
    const now = this.clock();
    const out = await this.fencedUpdate('markAbandonedUnknown', {
      Key: { pk },
      UpdateExpression: 'SET #status = :unknown, updatedAt = :nowMs REMOVE expiresAt',
      ConditionExpression: JournalCondition.abandonedLease,
      ExpressionAttributeNames: STATUS_NAME,
      ExpressionAttributeValues: {
        ':old': leaseToken,
        ':unknown': RecordStatus.unknown,
        ':inProgress': RecordStatus.inProgress,
        ':nowMs': now,
      },
      ReturnValues: 'ALL_NEW',
    });
    return recordFromItem(out);
  }

  async release(pk: string, leaseToken: string): Promise<void> {
    try {
      await this.calls.delete(
        'release',
        { pk },
        {
          ConditionExpression: JournalCondition.leaseHeldNotCompleted,
          ExpressionAttributeNames: STATUS_NAME,
          ExpressionAttributeValues: { ':mine': leaseToken, ':completed': RecordStatus.completed },
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        },
      );
    } catch (error) {
      throw this.fenceError(error, 'release');
    }
  }

  async holdUnique(hold: UniqueHold): Promise<void> {
    await holdUniqueOnDynamoDB(this.calls, hold, this.clock());
  }

  async pinUnique(hold: UniqueHold): Promise<void> {
    await pinUniqueOnDynamoDB(this.calls, hold.claim, hold.leaseToken);
  }

  async letGoUnique(hold: UniqueHold): Promise<void> {
    await letGoUniqueOnDynamoDB(this.calls, hold);
  }

  async get(pk: string): Promise<JournalRecord | undefined> {
    this.opened();
    try {
      const item = await this.calls.get('get', { pk });
      if (item) return this.chunks.attach(item, recordFromItem(item));
      // A key this journal has not settled yet may still be the old journal's (a wait policy polls it).
      return this.migration?.isOpen() ? this.migration.previousRecord(pk) : undefined;
    } catch (error) {
      throw toJournalError(error, 'get');
    }
  }

  async resolve(pk: string, resolution: Resolution): Promise<void> {
    const now = this.clock();
    try {
      if (resolution.outcome === 'released') {
        await this.calls.delete(
          'resolve',
          { pk },
          {
            ConditionExpression: JournalCondition.resolvable,
            ExpressionAttributeNames: STATUS_NAME,
            ExpressionAttributeValues: {
              ':unknown': RecordStatus.unknown,
              ':inProgress': RecordStatus.inProgress,
              ':nowMs': now,
            },
            ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
          },
        );
        return;
      }
      // An operator is not fenced by a lease: the record takes a new token, which names its chunks.
      const newToken = newLeaseToken();
      const encoded = encodeResponse(resolution.response);
      await this.chunks.write(pk, newToken, encoded, expiryFromNow(now, resolution.ttlSeconds));
      const { Key, ...update } = completionUpdate(pk, encoded, now, resolution.ttlSeconds, {
        kind: 'operator',
        newToken,
      });
      await this.calls.update('resolve', Key, { ...update, ReturnValuesOnConditionCheckFailure: 'ALL_OLD' });
    } catch (error) {
      if (!isConditionFailure(error)) throw toJournalError(error, 'resolve');
      const old = oldItemOf(error);
      throw new NotResolvableError(old ? recordFromItem(old) : undefined);
    }
  }

  async commitStaged(commit: StagedCommit): Promise<StagedCommitResult> {
    if (this.multiRegion) throw new MultiRegionUnsupportedError("effects: 'staged-only'");
    return commitStagedOnDynamoDB(
      { tableName: this.tableName, calls: this.calls, chunks: this.chunks },
      commit,
      this.clock(),
    );
  }

  private async fenced(
    operation: JournalOperation,
    pk: string,
    leaseToken: string,
    updateExpression: string,
    values: Record<string, unknown>,
    names?: Record<string, string>,
  ): Promise<void> {
    await this.fencedUpdate(operation, {
      Key: { pk },
      UpdateExpression: updateExpression,
      ConditionExpression: JournalCondition.leaseHeld,
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: { ...values, ':mine': leaseToken },
    });
  }

  private async fencedUpdate(
    operation: JournalOperation,
    input: { Key: JournalItem } & Parameters<ItemCalls['update']>[2],
  ): Promise<JournalItem> {
    const { Key, ...rest } = input;
    try {
      return (
        (await this.calls.update(operation, Key, { ...rest, ReturnValuesOnConditionCheckFailure: 'ALL_OLD' })) ?? {}
      );
    } catch (error) {
      throw this.fenceError(error, operation);
    }
  }

  private fenceError(error: unknown, operation: JournalOperation): Error {
    if (!isConditionFailure(error)) return toJournalError(error, operation);
    const old = oldItemOf(error);
    return new LeaseLostError(old ? recordFromItem(old) : undefined);
  }
}

/** A refused completion that finds the record completed under our own token: an SDK resend of a write that landed. */
function isOwnCompletion(error: unknown, leaseToken: string): boolean {
  return (
    error instanceof LeaseLostError &&
    error.existing?.status === RecordStatus.completed &&
    error.existing.leaseToken === leaseToken
  );
}

/**
 * The `multiRegion` option: a mode built by `strongConsistency()`, or none.
 *
 * @throws InvalidOptionsError for anything else (the 0.1 form `'strong'` says how to write it now)
 */
function readMultiRegionMode(value: unknown): MultiRegionMode | undefined {
  if (value === undefined) return undefined;
  const mode = value as Partial<MultiRegionMode> | null;
  if (
    typeof mode === 'object' &&
    mode !== null &&
    mode.consistency === 'strong' &&
    typeof mode.itemCalls === 'function'
  )
    return mode as MultiRegionMode;
  throw new InvalidOptionsError(
    value === 'strong'
      ? `${OWNER}: option 'multiRegion' takes strongConsistency() from 'idemkit/multi-region': write multiRegion: strongConsistency() for multiRegion: 'strong'`
      : `${OWNER}: option 'multiRegion' must be built by strongConsistency() from 'idemkit/multi-region'`,
  );
}

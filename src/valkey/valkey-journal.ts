import {
  assertKnownOptions,
  InvalidOptionsError,
  JournalFeatureUnsupportedError,
  JournalUnavailableError,
  LeaseLostError,
  NotResolvableError,
  readFunction,
  readNumber,
  readString,
  sha256Hex,
  UniqueConflictError,
} from '../core/index.js';
import {
  ClaimAttribute,
  expiryFromNow,
  heldClaimItem,
  newLeaseToken,
  RecordAttribute as A,
  recordFromItem,
  RecordStatus,
  reservationItem,
  uniquePk,
  type Completion,
  type CompletionWrites,
  type Evidence,
  type Journal,
  type JournalItem,
  type JournalRecord,
  type ReserveRequest,
  type ReserveResult,
  type Resolution,
  type StagedCommit,
  type StagedCommitResult,
  type TakeOverRequest,
  type UniqueClaim,
  type UniqueHold,
} from '../journal/index.js';
import { evictionPolicyOf, evictionWarning, type EvictionPolicyReport } from './eviction-policy.js';
import { evidenceFields, fieldsOf, itemOf, responseFields } from './hash-fields.js';
import { END_MARKER, LUA_SCRIPTS, type ScriptName } from './lua-scripts.js';
import type { ValkeyClient } from './valkey-client.js';

const OWNER = 'ValkeyJournal';

/** How long past a record's `expiresAt` (or its lease's end) the server keeps it, only to reclaim memory. */
export const MEMORY_MARGIN_MS = 60 * 60 * 1000;

/** Options of {@link ValkeyJournal}. */
export interface ValkeyJournalOptions {
  /** An `iovalkey`/`ioredis` `Redis` or `Cluster`, or any client of the {@link ValkeyClient} shape. */
  readonly client: ValkeyClient;
  /**
   * Prefix of every key the journal writes (records `<prefix>{<tag>}<pk>`, claims likewise). No
   * `{` or `}`: the hash tag that keeps a key in its slot is the journal's.
   * @default 'idemkit:'
   */
  readonly keyPrefix?: string;
  /**
   * Epoch milliseconds now: every expiry and lease comparison reads it (the scripts are given it),
   * never the server's clock.
   * @default Date.now
   */
  readonly clock?: () => number;
  /**
   * After every state change, `WAIT` until this many replicas acknowledged it, within `timeoutMs`;
   * fewer, and the call fails with `JournalUnavailableError` (the change may stand on the primary
   * alone: the guard answers as for an unavailable journal, and the record's lease or state decides
   * the retry). Not for a cluster client (its `WAIT` cannot reach the node the write went to).
   * See docs/valkey.md for what it keeps through a failover and what it costs.
   * @default undefined (no WAIT)
   */
  readonly waitForReplicas?: { readonly replicas: number; readonly timeoutMs: number };
  /**
   * Where the warning about an eviction policy that may delete records goes.
   * @default console
   */
  readonly logger?: {
    /** Logs one warning (a Powertools `Logger`, `console`). */
    warn(message: string): unknown;
  };
}

/** What a script's reply may say, and whether that outcome changed state (then `WAIT` follows, if asked). */
type Outcomes = Readonly<Record<string, 'changed' | 'unchanged'>>;

/**
 * The journal on Valkey or Redis OSS (ElastiCache, MemoryDB, or a server of your own), with the
 * records, fingerprints, leases, fencing tokens, expiry and answers of `DynamoDBJournal`:
 * every state change is one Lua script that checks the lease token and the state and writes
 * atomically, and whose reply says what happened; any other reply, and any server or connection
 * error, is `JournalUnavailableError` (the guard fails closed). Expiry is `expiresAt`, read by
 * the guard against the journal's clock; the server's TTL only reclaims memory, set well past it,
 * and never on a record that must not expire (`UNKNOWN`, effect begun).
 *
 * It has no transactions and no outbox (`transactions: false`): `stage()`, `claimUnique()`,
 * `publish()` and `effects: 'staged-only'` are refused with `JournalFeatureUnsupportedError`;
 * `holdUnique()` works. See docs/valkey.md.
 *
 * @example
 * import { Valkey } from 'iovalkey';
 * import { ValkeyJournal } from 'idemkit/valkey';
 * const journal = new ValkeyJournal({ client: new Valkey(process.env.VALKEY_URL!) });
 * export const handler = middy(createOrder).use(httpIdempotency({ journal }));
 */
export class ValkeyJournal implements Journal {
  /** No transactions and no outbox: the features that need them are refused. */
  readonly transactions = false as const;
  private readonly client: ValkeyClient;
  private readonly prefix: string;
  private readonly clock: () => number;
  private readonly replicas: { readonly replicas: number; readonly timeoutMs: number } | undefined;
  private readonly logger: { warn(message: string): unknown };
  private policy?: Promise<EvictionPolicyReport>;

  constructor(options: ValkeyJournalOptions) {
    assertKnownOptions(OWNER, options, [
      'client',
      'keyPrefix',
      'clock',
      'waitForReplicas',
      'logger',
    ] as const satisfies readonly (keyof ValkeyJournalOptions)[]);
    const client = options?.client as Partial<ValkeyClient> | undefined;
    if (typeof client?.evalsha !== 'function' || typeof client.eval !== 'function' || typeof client.info !== 'function')
      throw new InvalidOptionsError(
        `${OWNER}: option 'client' must be an iovalkey/ioredis client or cluster, or an adapter with evalsha, eval and info`,
      );
    this.client = options.client;
    this.prefix = readString(OWNER, 'keyPrefix', options.keyPrefix, 'idemkit:');
    if (/[{}]/.test(this.prefix))
      throw new InvalidOptionsError(
        `${OWNER}: option 'keyPrefix' must not contain '{' or '}' (the journal's hash tag)`,
      );
    this.clock = readFunction(OWNER, 'clock', options.clock, Date.now);
    this.replicas = readReplicas(options.waitForReplicas, this.client);
    const logger = options.logger ?? console;
    if (typeof logger?.warn !== 'function')
      throw new InvalidOptionsError(`${OWNER}: option 'logger' must have a warn(message) method`);
    this.logger = logger;
  }

  /**
   * The server's eviction policy, read once (`INFO memory`, on the journal's first call, or here):
   * anything but `noeviction` is logged as a warning, since it may delete a record before its
   * expiry and that request would run again. A server that does not answer `INFO` is reported as
   * `{ policy: undefined, mayEvict: true }`; the journal works on.
   */
  evictionPolicy(): Promise<EvictionPolicyReport> {
    this.policy ??= this.client
      .info('memory')
      .then(evictionPolicyOf, () => evictionPolicyOf(undefined))
      .then((report) => {
        if (report.mayEvict) this.logger.warn(evictionWarning(report));
        return report;
      });
    return this.policy;
  }

  /** The key of a record (or claim) `pk`: a hash tag of its own, so whatever `pk` holds, the key stays in one slot. */
  keyOf(pk: string): string {
    return `${this.prefix}{${sha256Hex(pk).slice(0, 16)}}${pk}`;
  }

  async reserve(request: ReserveRequest): Promise<ReserveResult> {
    const now = this.clock();
    const item = reservationItem(request, now);
    const [outcome, ...rest] = await this.run('reserve', request.pk, now, fieldsOf(item), {
      RESERVED: 'changed',
      EXISTS: 'unchanged',
    });
    if (outcome === 'RESERVED') {
      if (rest.length !== 1 || (rest[0] !== '0' && rest[0] !== '1')) throw unexpected('reserve');
      return { reserved: true, record: recordFromItem(item), replacedExpired: rest[0] === '1' };
    }
    const existing = this.recordOf(rest, 'reserve');
    // A client resent a reservation that had landed: the record holds the token just written.
    if (existing.leaseToken === item[A.leaseToken]) return { reserved: true, record: existing, replacedExpired: false };
    return { reserved: false, record: existing };
  }

  async takeOver({ pk, expectedToken, leaseMs, durableExecutionArn }: TakeOverRequest): Promise<JournalRecord> {
    const now = this.clock();
    const token = newLeaseToken();
    const args = [expectedToken, token, String(now + leaseMs), durableExecutionArn ?? ''];
    const [outcome, ...rest] = await this.run('takeOver', pk, now, args, { TAKEN: 'changed', LOST: 'unchanged' });
    const record = rest.length === 0 ? undefined : this.recordOf(rest, 'takeOver');
    if (outcome === 'TAKEN' && record) return record;
    // A client resent a takeover that had landed: the record holds the token just written.
    if (record?.leaseToken === token) return record;
    throw new LeaseLostError(record);
  }

  async heartbeat(pk: string, leaseToken: string, leaseMs: number): Promise<number> {
    const now = this.clock();
    const leaseUntil = now + leaseMs;
    await this.fenced('leaseHeldSet', pk, now, leaseToken, [
      A.leaseUntil,
      String(leaseUntil),
      A.updatedAt,
      String(now),
    ]);
    return leaseUntil;
  }

  async beginEffect(pk: string, leaseToken: string, effectName: string): Promise<void> {
    const now = this.clock();
    // The record stops expiring: once an effect may have happened, only an outcome or an operator may end it.
    await this.fenced('leaseHeldPersist', pk, now, leaseToken, [
      A.effectStarted,
      'true',
      A.effectName,
      effectName,
      A.updatedAt,
      String(now),
    ]);
  }

  async recordEvidence(pk: string, leaseToken: string, evidence: Evidence): Promise<void> {
    const now = this.clock();
    await this.fenced('leaseHeldSet', pk, now, leaseToken, [...evidenceFields(evidence), A.updatedAt, String(now)]);
  }

  async complete({ pk, leaseToken, response, ttlSeconds, writes }: Completion): Promise<void> {
    const now = this.clock();
    refuseTransactionalWrites(writes);
    // Before anything is written: a response too large or not JSON completes nothing.
    const fields = [
      A.status,
      RecordStatus.completed,
      ...responseFields(response),
      A.expiresAt,
      String(expiryFromNow(now, ttlSeconds)),
      A.updatedAt,
      String(now),
    ];
    // Held claims are pinned before the record completes (unless the effect pinned them), so no write after it decides
    // whether they stay refused; made permanent after it, where a write cut off leaves them pinned, which is enough.
    const held = writes?.heldClaims ?? [];
    if (!writes?.heldClaimsPinned) for (const claim of held) await this.pin(claim, leaseToken);
    const [outcome, ...rest] = await this.run('complete', pk, now, [leaseToken, ...fields], {
      COMPLETED: 'changed',
      OWN: 'unchanged',
      LOST: 'unchanged',
    });
    if (outcome === 'LOST') throw new LeaseLostError(this.recordOrNone(rest, 'complete'));
    for (const claim of held)
      await this.claimCall(claim, [leaseToken, 'permanent'], { DONE: 'changed', CONFLICT: 'unchanged' }).catch(
        () => undefined,
      );
  }

  async markUnknown(pk: string, leaseToken: string): Promise<void> {
    const now = this.clock();
    await this.fenced('leaseHeldPersist', pk, now, leaseToken, [
      A.status,
      RecordStatus.unknown,
      A.updatedAt,
      String(now),
    ]);
  }

  async markAbandonedUnknown(pk: string, leaseToken: string): Promise<JournalRecord> {
    const now = this.clock();
    const [outcome, ...rest] = await this.run('markAbandonedUnknown', pk, now, [leaseToken], {
      MARKED: 'changed',
      LOST: 'unchanged',
    });
    if (outcome === 'MARKED') return this.recordOf(rest, 'markAbandonedUnknown');
    throw new LeaseLostError(this.recordOrNone(rest, 'markAbandonedUnknown'));
  }

  async release(pk: string, leaseToken: string): Promise<void> {
    const [outcome, ...rest] = await this.run('release', pk, this.clock(), [leaseToken], {
      RELEASED: 'changed',
      LOST: 'unchanged',
    });
    if (outcome === 'LOST') throw new LeaseLostError(this.recordOrNone(rest, 'release'));
  }

  async holdUnique(hold: UniqueHold): Promise<void> {
    const now = this.clock();
    const { pk: claimPk, ...attributes } = heldClaimItem(hold, now);
    const fields = fieldsOf({ pk: claimPk, ...attributes });
    const conflict = (item: JournalItem | undefined) =>
      new UniqueConflictError(hold.claim.name, hold.claim.value, item);
    const owner = [hold.ownerPk, String(hold.ownerCreatedAtEpochMs)];
    const [outcome, ...rest] = await this.claimCall(
      hold.claim,
      [...owner, ...fields],
      {
        HELD: 'changed',
        CONFLICT: 'unchanged',
      },
      'holdUnique',
    );
    if (outcome === 'HELD') return;
    const held = itemOf(rest);
    if (held?.[ClaimAttribute.holdToken] === hold.leaseToken) return;
    const staleToken = held?.[ClaimAttribute.holdToken];
    const holder = held?.[ClaimAttribute.claimedBy];
    if (typeof staleToken !== 'string' || typeof holder !== 'string') throw conflict(held);
    // A pinned hold guards an effect or an outcome that may have happened: no other operation takes it.
    if (held?.[ClaimAttribute.pinned] !== undefined) throw conflict(held);
    // The holder's record lives on its own key (another slot): it is fenced by a script of its own first, as the
    // DynamoDB journal does with a write of its own; the takeover of the claim is then fenced on the stale token.
    const [gone] = await this.run('fenceHolder', holder, now, [staleToken, newLeaseToken()], {
      GONE: 'unchanged',
      FENCED: 'changed',
      KEEP: 'unchanged',
    });
    if (gone === 'KEEP') throw conflict(held);
    const [taken, ...now_] = await this.claimCall(
      hold.claim,
      [staleToken, ...fields],
      {
        HELD: 'changed',
        CONFLICT: 'unchanged',
      },
      'takeUnique',
    );
    if (taken === 'HELD') return;
    const current = itemOf(now_);
    if (current?.[ClaimAttribute.holdToken] === hold.leaseToken) return;
    throw conflict(current);
  }

  async pinUnique(hold: UniqueHold): Promise<void> {
    await this.pin(hold.claim, hold.leaseToken);
  }

  async letGoUnique(hold: UniqueHold): Promise<void> {
    await this.claimCall(hold.claim, [hold.leaseToken, 'letGo'], { DONE: 'changed', CONFLICT: 'unchanged' });
  }

  async get(pk: string): Promise<JournalRecord | undefined> {
    const [, ...rest] = await this.run('get', pk, this.clock(), [], { RECORD: 'unchanged' });
    return this.recordOrNone(rest, 'get');
  }

  async resolve(pk: string, resolution: Resolution): Promise<void> {
    const now = this.clock();
    const args =
      resolution.outcome === 'released'
        ? ['released']
        : [
            'completed',
            A.status,
            RecordStatus.completed,
            A.leaseToken,
            newLeaseToken(),
            ...responseFields(resolution.response),
            A.expiresAt,
            String(expiryFromNow(now, resolution.ttlSeconds)),
            A.updatedAt,
            String(now),
          ];
    const [outcome, ...rest] = await this.run('resolve', pk, now, args, { RESOLVED: 'changed', REFUSED: 'unchanged' });
    if (outcome === 'REFUSED') throw new NotResolvableError(this.recordOrNone(rest, 'resolve'));
  }

  /** Refused: a staged-only commit is one transaction, which Valkey has not. */
  async commitStaged(_commit: StagedCommit): Promise<StagedCommitResult> {
    throw new JournalFeatureUnsupportedError("effects: 'staged-only'");
  }

  private async pin(claim: UniqueClaim, leaseToken: string): Promise<void> {
    const [outcome, ...rest] = await this.claimCall(claim, [leaseToken, 'pin'], {
      DONE: 'changed',
      CONFLICT: 'unchanged',
    });
    if (outcome === 'CONFLICT') throw new UniqueConflictError(claim.name, claim.value, itemOf(rest));
  }

  /** A fenced write on a record (`leaseHeld`): OK, or `LeaseLostError` with the record found. */
  private async fenced(
    name: 'leaseHeldSet' | 'leaseHeldPersist',
    pk: string,
    now: number,
    leaseToken: string,
    fields: string[],
  ): Promise<void> {
    const [outcome, ...rest] = await this.run(name, pk, now, [leaseToken, ...fields], {
      OK: 'changed',
      LOST: 'unchanged',
    });
    if (outcome === 'LOST') throw new LeaseLostError(this.recordOrNone(rest, name));
  }

  private claimCall(
    claim: UniqueClaim,
    args: string[],
    outcomes: Outcomes,
    name: 'heldClaim' | 'holdUnique' | 'takeUnique' = 'heldClaim',
  ): Promise<string[]> {
    return this.run(name, uniquePk(claim.name, claim.value), this.clock(), args, outcomes);
  }

  private recordOf(fields: readonly string[], name: ScriptName): JournalRecord {
    const record = this.recordOrNone(fields, name);
    if (!record) throw unexpected(name);
    return record;
  }

  private recordOrNone(fields: readonly string[], name: ScriptName): JournalRecord | undefined {
    if (fields.length % 2 !== 0) throw unexpected(name);
    const item = itemOf(fields);
    return item && recordFromItem(item);
  }

  /**
   * Runs one script on the key of `pk` (`EVALSHA`, then `EVAL` once if the server does not have it) and returns its
   * reply, checked: an array of strings whose first is one of `outcomes`. Anything else — an error, a dropped reply,
   * a reply of another shape — is `JournalUnavailableError`: the guard never reads success into what it did not see.
   */
  private async run(name: ScriptName, pk: string, now: number, args: string[], outcomes: Outcomes): Promise<string[]> {
    void this.evictionPolicy();
    const script = LUA_SCRIPTS[name];
    const argv = [String(now), String(MEMORY_MARGIN_MS), ...args];
    const keysAndArgs = [this.keyOf(pk), ...argv, END_MARKER, String(argv.length)];
    let reply: unknown;
    try {
      reply = await this.client.evalsha(script.sha1, 1, ...keysAndArgs);
    } catch (error) {
      if (!isNoScript(error)) throw unavailable(name, error);
      try {
        reply = await this.client.eval(script.source, 1, ...keysAndArgs);
      } catch (retried) {
        throw unavailable(name, retried);
      }
    }
    if (!Array.isArray(reply) || reply.length === 0 || !reply.every((part) => typeof part === 'string'))
      throw unexpected(name);
    const outcome = outcomes[reply[0] as string];
    if (outcome === undefined) throw unexpected(name);
    if (outcome === 'changed' && this.replicas) await this.replicated(name);
    return reply as string[];
  }

  /** `WAIT` for the replicas asked for; fewer in time, and the change is not reported as made. */
  private async replicated(name: ScriptName): Promise<void> {
    const { replicas, timeoutMs } = this.replicas!;
    let acknowledged: unknown;
    try {
      acknowledged = await this.client.wait!(replicas, timeoutMs);
    } catch (error) {
      throw unavailable(name, error);
    }
    if (typeof acknowledged !== 'number' || acknowledged < replicas)
      throw new JournalUnavailableError(
        `${OWNER}: ${name} reached ${String(acknowledged)} of ${replicas} replicas within ${timeoutMs} ms`,
      );
  }
}

/** Staged writes, permanent claims and outbox events need a transaction (or DynamoDB's outbox): refused whole. */
function refuseTransactionalWrites(writes: CompletionWrites | undefined): void {
  if (writes?.staged.length) throw new JournalFeatureUnsupportedError('stage()');
  if (writes?.uniqueClaims.length) throw new JournalFeatureUnsupportedError('claimUnique()');
  if (writes?.outbox.length) throw new JournalFeatureUnsupportedError('publish()');
}

function readReplicas(value: unknown, client: ValkeyClient): ValkeyJournalOptions['waitForReplicas'] {
  if (value === undefined) return undefined;
  const option = value as { replicas?: unknown; timeoutMs?: unknown };
  if (typeof value !== 'object' || value === null)
    throw new InvalidOptionsError(`${OWNER}: option 'waitForReplicas' must be { replicas, timeoutMs }`);
  const replicas = readNumber(OWNER, 'waitForReplicas.replicas', option.replicas, undefined, { min: 0, integer: true });
  const timeoutMs = readNumber(OWNER, 'waitForReplicas.timeoutMs', option.timeoutMs, undefined, {
    min: 1,
    integer: true,
  });
  if (replicas === undefined || timeoutMs === undefined)
    throw new InvalidOptionsError(`${OWNER}: option 'waitForReplicas' needs replicas and timeoutMs`);
  if (client.isCluster === true || typeof client.wait !== 'function')
    throw new InvalidOptionsError(
      `${OWNER}: option 'waitForReplicas' needs a single-node client with wait(): a cluster client's WAIT cannot reach the node a write went to`,
    );
  return { replicas, timeoutMs };
}

function isNoScript(error: unknown): boolean {
  return error instanceof Error && error.message.startsWith('NOSCRIPT');
}

function unavailable(name: ScriptName, error: unknown): JournalUnavailableError {
  const what = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return new JournalUnavailableError(`${OWNER}: ${name} failed (${what})`, { cause: error });
}

function unexpected(name: ScriptName): JournalUnavailableError {
  return new JournalUnavailableError(
    `${OWNER}: ${name} got a reply its script does not give: the client dropped or changed the call or its reply, so nothing is assumed`,
  );
}

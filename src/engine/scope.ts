import { IdempotencyError, InvalidOptionsError, sha256Hex, StagedOnlyError, StagedWriteError } from '../core/index.js';
import {
  assertStageable,
  TRANSACTION_MAX_ITEMS,
  type Evidence,
  type Journal,
  type JournalRecord,
  type OutboxEvent,
  type TransactItem,
  type UniqueClaim,
  type UniqueHold,
} from '../journal/index.js';
import { assertJournalOffers } from './journal-features.js';

/** What a guarded handler can do with its idempotency record (see `idempotencyOf`). */
export interface IdempotencyScope {
  /** The client's idempotency key (or message id). */
  readonly key: string;
  /** `<tenant>#<operation>` (or `<consumer>` for queues). */
  readonly scope: string;
  /** 1 on the first reservation, +1 on each takeover. */
  readonly attempt: number;
  /** True when this attempt took over a record whose effect had started. */
  readonly recovering: boolean;
  /** Downstream references recorded by earlier attempts. */
  readonly evidence: Readonly<Evidence>;
  /** Durable marker before an irreversible effect: a crash after it is never silently re-run. */
  beginEffect(name?: string): Promise<void>;
  /** Records downstream references (charge id, ticket number) on the record. */
  recordEvidence(refs: Evidence): Promise<void>;
  /** A stable key for one downstream side effect: same scope, key and label give the same value. */
  deriveKey(label: string): string;
  /** Queues DocumentClient `TransactWriteItems` entries to commit with the completion. */
  stage(...items: TransactItem[]): void;
  /** Queues an outbox event committed with the completion; returns its stable event id. */
  publish(event: { type: string; detail: unknown }): string;
  /** Queues a long-lived uniqueness claim committed with the completion. */
  claimUnique(name: string, value: string): void;
  /**
   * Takes a uniqueness claim now, before the effect it guards: one conditional write owned by
   * this attempt's lease. Released with the attempt, made permanent by its completion; a claim
   * whose holder's lease ended before any effect can be taken over.
   *
   * @throws UniqueConflictError before any effect when the value is claimed
   * @example
   * await scope.holdUnique('refund-of-charge', chargeId); // refused here, not after the money moved
   * await scope.beginEffect('refund');
   */
  holdUnique(name: string, value: string): Promise<void>;
  /** Extends the lease of this attempt. */
  heartbeat(): Promise<void>;
}

/** What an {@link AttemptScope} is made of. */
export interface AttemptScopeInit {
  /** The journal as this attempt sees it (its calls counted and traced). */
  readonly journal: Journal;
  /**
   * The record this attempt holds the lease of; under `effects: 'staged-only'`, the record its
   * commit will write (no lease is held, so the lease operations are refused).
   */
  readonly record: JournalRecord;
  /** False under `effects: 'staged-only'`: nothing is written before the commit. */
  readonly leased: boolean;
  readonly key: string;
  readonly scope: string;
  readonly recovering: boolean;
  /** The lease a heartbeat asks for, read at each heartbeat (it follows the Lambda's remaining time). */
  readonly leaseMs: () => number;
  readonly clock: () => number;
}

/**
 * The scope of one attempt; it queues writes until the completion. An attempt holding a lease
 * writes to its record as it goes (effect marker, evidence, heartbeat, held claims); a
 * staged-only attempt holds none, and those calls are refused with `StagedOnlyError`.
 */
export class AttemptScope implements IdempotencyScope {
  readonly staged: TransactItem[] = [];
  readonly uniqueClaims: UniqueClaim[] = [];
  readonly heldClaims: UniqueClaim[] = [];
  readonly outbox: OutboxEvent[] = [];
  evidence: Evidence;
  effectStarted: boolean;
  readonly key: string;
  readonly scope: string;
  readonly recovering: boolean;
  readonly leased: boolean;
  private record: JournalRecord;
  private readonly journal: Journal;
  private readonly leaseMs: () => number;
  private readonly clock: () => number;

  constructor(init: AttemptScopeInit) {
    this.journal = init.journal;
    this.record = init.record;
    this.key = init.key;
    this.scope = init.scope;
    this.recovering = init.recovering;
    this.leased = init.leased;
    this.leaseMs = init.leaseMs;
    this.clock = init.clock;
    this.evidence = { ...init.record.evidence };
    this.effectStarted = init.record.effectStarted;
  }

  get attempt(): number {
    return this.record.attempt;
  }

  get pk(): string {
    return this.record.pk;
  }

  get leaseToken(): string {
    return this.record.leaseToken;
  }

  get fingerprint(): string {
    return this.record.fingerprint;
  }

  get createdAtEpochMs(): number {
    return this.record.createdAtEpochMs;
  }

  async beginEffect(name = 'effect'): Promise<void> {
    this.requireLease('beginEffect');
    // Held claims are pinned before the marker: whatever becomes of the record, no other operation takes them.
    if (!this.effectStarted)
      await Promise.all(this.heldClaims.map((claim) => this.journal.pinUnique(this.holdOf(claim))));
    await this.journal.beginEffect(this.pk, this.leaseToken, name);
    this.effectStarted = true;
  }

  async recordEvidence(refs: Evidence): Promise<void> {
    this.requireLease('recordEvidence');
    await this.journal.recordEvidence(this.pk, this.leaseToken, refs);
    this.evidence = { ...this.evidence, ...refs };
  }

  deriveKey(label: string): string {
    return this.stableId('key', label);
  }

  stage(...items: TransactItem[]): void {
    assertJournalOffers(this.journal, 'stage()');
    this.ensureRoom(items.length);
    // Refused here, where the handler makes the mistake: at the commit it would be blamed on the journal.
    items.forEach((item, i) => assertStageable(item, this.staged.length + i));
    this.staged.push(...items);
  }

  publish(event: { type: string; detail: unknown }): string {
    assertJournalOffers(this.journal, 'publish()');
    if (!event || typeof event.type !== 'string' || event.type.length === 0) {
      throw new InvalidOptionsError('publish() needs an event with a non-empty string type');
    }
    this.ensureRoom(1);
    try {
      JSON.stringify(event.detail ?? null);
    } catch (error) {
      throw new StagedWriteError(`outbox event #${this.outbox.length}`, `its detail is not JSON: ${error}`, {
        cause: error,
      });
    }
    const eventId = this.stableId('event', String(this.outbox.length));
    this.outbox.push({
      eventId,
      type: event.type,
      detail: event.detail,
      occurredAt: new Date(this.clock()).toISOString(),
    });
    return eventId;
  }

  claimUnique(name: string, value: string): void {
    assertJournalOffers(this.journal, 'claimUnique()');
    assertClaim('claimUnique', name, value);
    this.ensureRoom(1);
    this.uniqueClaims.push({ name, value });
  }

  async holdUnique(name: string, value: string): Promise<void> {
    // No lease to own the claim: claimUnique commits it with the writes in the one transaction.
    this.requireLease('holdUnique');
    assertClaim('holdUnique', name, value);
    if (this.heldClaims.some((claim) => claim.name === name && claim.value === value)) return;
    this.ensureRoom(1);
    await this.journal.holdUnique(this.holdOf({ name, value }));
    this.heldClaims.push({ name, value });
  }

  async heartbeat(): Promise<void> {
    this.requireLease('heartbeat');
    const leaseUntilEpochMs = await this.journal.heartbeat(this.pk, this.leaseToken, this.leaseMs());
    this.record = { ...this.record, leaseUntilEpochMs };
  }

  /** True when the completion needs a transaction. */
  get hasWrites(): boolean {
    return this.staged.length + this.uniqueClaims.length + this.outbox.length + this.heldClaims.length > 0;
  }

  /** Lets the held claims go once the attempt ends without an outcome or an effect; a failure leaves them stale. */
  async letGoHeldClaims(): Promise<void> {
    await Promise.all(this.heldClaims.map((claim) => this.journal.letGoUnique(this.holdOf(claim))));
  }

  /** A claim as this attempt holds it: pinned from the start once its effect may have begun. */
  private holdOf(claim: UniqueClaim): UniqueHold {
    const { pk: ownerPk, createdAtEpochMs: ownerCreatedAtEpochMs, leaseToken, effectStarted: pinned } = this;
    return { claim, ownerPk, ownerCreatedAtEpochMs, leaseToken, pinned };
  }

  /**
   * Ids derived from the record's `createdAt` stay stable across retries and takeovers of
   * one logical operation, and change when an expired key is reused for new work.
   */
  private stableId(kind: string, label: string): string {
    return sha256Hex(JSON.stringify([this.scope, this.key, this.record.createdAtEpochMs, kind, label])).slice(0, 32);
  }

  private requireLease(operation: 'beginEffect' | 'recordEvidence' | 'heartbeat' | 'holdUnique'): void {
    if (!this.leased) throw new StagedOnlyError(operation);
  }

  private ensureRoom(count: number): void {
    // Nothing commits in a transaction there: the outbox events ride in the record, bounded by its bytes at completion.
    if (this.journal.multiRegion === 'strong') return;
    const used = 1 + this.staged.length + this.uniqueClaims.length + this.outbox.length + this.heldClaims.length;
    if (used + count > TRANSACTION_MAX_ITEMS) {
      throw new IdempotencyError(
        'too-many-writes',
        `A completion commits at most ${TRANSACTION_MAX_ITEMS} items, including its own record`,
      );
    }
  }
}

function assertClaim(operation: string, name: unknown, value: unknown): void {
  if (typeof name !== 'string' || !name || typeof value !== 'string' || !value)
    throw new InvalidOptionsError(`${operation}() needs a name and a non-empty string value`);
}

/** Scopes by the Lambda context of the attempt holding them: a handler reaches its scope through its context. */
const scopes = new WeakMap<object, IdempotencyScope>();

/** Binds a scope to the Lambda context of the attempt that holds its lease. */
export function bindScope(context: object, scope: IdempotencyScope): void {
  scopes.set(context, scope);
}

/** Unbinds the scope once the attempt is over. */
export function unbindScope(context: object): void {
  scopes.delete(context);
}

/**
 * The idempotency scope of the guarded attempt running with this Lambda context.
 *
 * @throws IdempotencyError (`no-scope`) outside a guarded handler
 * @example
 * const scope = idempotencyOf(context);
 * await scope.beginEffect('charge');
 */
export function idempotencyOf(context: object): IdempotencyScope {
  const scope = context ? scopes.get(context) : undefined;
  if (!scope)
    throw new IdempotencyError('no-scope', 'idempotencyOf(context) is only available inside a guarded handler');
  return scope;
}

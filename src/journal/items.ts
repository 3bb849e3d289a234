import { randomUUID } from 'node:crypto';
import { outboxPk, RecordKind, RecordStatus, uniquePk } from './schema.js';
import type { JournalRecord, OutboxEvent, UniqueClaim } from './journal.js';

/** Outbox items outlive their dispatch by this long, then DynamoDB TTL removes them (the dispatcher sets it). */
export const OUTBOX_RETENTION_SECONDS = 7 * 24 * 3600;

/** A fresh, unguessable lease token. */
export function newLeaseToken(): string {
  return randomUUID();
}

/** The `outbox#<eventId>` item written by the completion transaction: no `expiresAt` until it was dispatched. */
export function outboxItem(event: OutboxEvent, sourcePk: string): Record<string, unknown> {
  return {
    pk: outboxPk(event.eventId),
    kind: RecordKind.outbox,
    eventId: event.eventId,
    type: event.type,
    detail: JSON.stringify(event.detail ?? null),
    occurredAt: event.occurredAt,
    source: sourcePk,
  };
}

/** The `uniq#<name>#<value>` item: no `expiresAt`, a business rule does not lapse. */
export function uniqueItem(claim: UniqueClaim, ownerPk: string, nowEpochMs: number): Record<string, unknown> {
  return {
    pk: uniquePk(claim.name, claim.value),
    kind: RecordKind.unique,
    claimName: claim.name,
    claimValue: claim.value,
    claimedBy: ownerPk,
    createdAt: nowEpochMs,
  };
}

/** Epoch seconds `ttlSeconds` from now, and never before the lease ends (so TTL cannot delete a live lease). */
export function leaseAwareExpiry(nowEpochMs: number, ttlSeconds: number, leaseUntilEpochMs: number): number {
  return Math.max(expiryFromNow(nowEpochMs, ttlSeconds), Math.ceil(leaseUntilEpochMs / 1000));
}

/** Epoch seconds `ttlSeconds` from now. */
export function expiryFromNow(nowEpochMs: number, ttlSeconds: number): number {
  return Math.floor(nowEpochMs / 1000) + ttlSeconds;
}

/**
 * Whether a reservation may claim over an existing record: past its `expiresAt` (whatever
 * DynamoDB TTL has done with it), unless an attempt still holds a live lease on it, which a
 * `ttlSeconds` shorter than the lease must not cut short.
 */
export function isClaimable(record: Pick<JournalRecord, 'expiresAtEpochSeconds' | 'status' | 'leaseUntilEpochMs'>, nowEpochMs: number): boolean {
  return isExpired(record.expiresAtEpochSeconds, nowEpochMs) && !(record.status === RecordStatus.inProgress && record.leaseUntilEpochMs >= nowEpochMs);
}

/** A record past its `expiresAt` is treated as absent, whatever DynamoDB TTL has done with it. */
export function isExpired(expiresAtEpochSeconds: number | undefined, nowEpochMs: number): boolean {
  return expiresAtEpochSeconds !== undefined && expiresAtEpochSeconds * 1000 <= nowEpochMs;
}

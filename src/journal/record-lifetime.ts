import { randomUUID } from 'node:crypto';

/**
 * How long a record lives and who may claim it: lease tokens, expiry and the two claim rules.
 *
 * Who may claim or write a record is decided by the named conditions of `conditions.ts` alone
 * (DynamoDB expressions and their TypeScript predicates, `JournalGuard`).
 */

/** A fresh, unguessable lease token. */
export function newLeaseToken(): string {
  return randomUUID();
}

/** Epoch seconds `ttlSeconds` from now. */
export function expiryFromNow(nowEpochMs: number, ttlSeconds: number): number {
  return Math.floor(nowEpochMs / 1000) + ttlSeconds;
}

/** Epoch seconds `ttlSeconds` from now, and never before the lease ends (so TTL cannot delete a live lease). */
export function leaseAwareExpiry(nowEpochMs: number, ttlSeconds: number, leaseUntilEpochMs: number): number {
  return Math.max(expiryFromNow(nowEpochMs, ttlSeconds), Math.ceil(leaseUntilEpochMs / 1000));
}

/** A record past its `expiresAt` is treated as absent, whatever DynamoDB TTL has done with it. */
export function isExpired(expiresAtEpochSeconds: number | undefined, nowEpochMs: number): boolean {
  return expiresAtEpochSeconds !== undefined && expiresAtEpochSeconds * 1000 <= nowEpochMs;
}

import { randomUUID } from 'node:crypto';
import type { JournalRecord } from './journal.js';
import { RecordStatus } from './schema.js';

/**
 * How long a record lives and who may claim it: lease tokens, expiry and the two claim rules.
 *
 * Both journals decide who may claim a key with these functions, and the DynamoDB journal's
 * condition expressions (`JournalCondition.claimable`, `.stagedCommitClaimable`) say the same
 * in DynamoDB's words; the protocol model checks them (docs/protocol.md). The other fences
 * (takeover, abandonment, resolution) are each one condition in `conditions.ts`, which
 * `MemoryJournal` mirrors where it applies them.
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

/**
 * Whether a reservation may claim over an existing record: past its `expiresAt` (whatever
 * DynamoDB TTL has done with it) and completed, or in progress under an ended lease — a live
 * lease is never cut short by a `ttlSeconds` shorter than it, and a status the guard does not
 * know is never claimed.
 */
export function isClaimable(
  record: Pick<JournalRecord, 'expiresAtEpochSeconds' | 'status' | 'leaseUntilEpochMs'>,
  nowEpochMs: number,
): boolean {
  const settled =
    record.status === RecordStatus.completed ||
    (record.status === RecordStatus.inProgress && record.leaseUntilEpochMs < nowEpochMs);
  return isExpired(record.expiresAtEpochSeconds, nowEpochMs) && settled;
}

/**
 * Whether a staged commit may claim over an existing record: one a reservation could claim
 * (past `expiresAt`, no live lease), or a leased attempt that vanished before it began any
 * effect — exactly what a takeover would run again, so committing over it runs nothing twice;
 * that attempt's own later writes are fenced on its token.
 */
export function isClaimableByCommit(
  record: Pick<JournalRecord, 'expiresAtEpochSeconds' | 'status' | 'leaseUntilEpochMs' | 'effectStarted'>,
  nowEpochMs: number,
): boolean {
  if (isClaimable(record, nowEpochMs)) return true;
  return record.status === RecordStatus.inProgress && record.leaseUntilEpochMs < nowEpochMs && !record.effectStarted;
}

/**
 * Whether a record found in the way needs recovery rather than a wait or a takeover: it is
 * `UNKNOWN`, or an attempt began an effect and its lease ended (it may have vanished after the
 * effect). Only the `recover` hook, with the recorded evidence, or an operator may decide it.
 */
export function needsRecovery(
  record: Pick<JournalRecord, 'status' | 'effectStarted' | 'leaseUntilEpochMs'>,
  nowEpochMs: number,
): boolean {
  return record.status === RecordStatus.unknown || (record.effectStarted && record.leaseUntilEpochMs < nowEpochMs);
}

import type { Evidence, JournalRecord, ReserveRequest } from './journal.js';
import { leaseAwareExpiry, newLeaseToken } from './record-lifetime.js';
import { storedResponseOf } from './stored-response.js';
import { RecordUnreadableError } from '../core/index.js';
import { RecordAttribute as A, RecordKind, RecordPrefix, RecordStatus, type JournalItem } from './schema.js';

export type { JournalItem } from './schema.js';

/**
 * What a fresh record item is made of: the rest (attempt 1, no evidence, no effect) is the same for every new record.
 */
export interface NewRecord {
  readonly pk: string;
  readonly status: RecordStatus;
  readonly fingerprint: string;
  readonly leaseToken: string;
  readonly leaseUntilEpochMs: number;
  readonly createdAtEpochMs: number;
  readonly updatedAtEpochMs: number;
  readonly expiresAtEpochSeconds: number;
}

/**
 * The item of a record written whole: a reservation (`IN_PROGRESS` under a lease) or a staged
 * commit (`COMPLETED` at once, its response attributes added by the caller). Both journals
 * build new records here, so a field added to the schema is added once.
 */
export function newRecordItem(record: NewRecord): JournalItem {
  return {
    [A.pk]: record.pk,
    [A.kind]: record.pk.startsWith(RecordPrefix.message) ? RecordKind.message : RecordKind.request,
    [A.status]: record.status,
    [A.fingerprint]: record.fingerprint,
    [A.leaseToken]: record.leaseToken,
    [A.leaseUntil]: record.leaseUntilEpochMs,
    [A.attempt]: 1,
    [A.createdAt]: record.createdAtEpochMs,
    [A.updatedAt]: record.updatedAtEpochMs,
    [A.expiresAt]: record.expiresAtEpochSeconds,
    [A.evidence]: {},
    [A.effectStarted]: false,
  };
}

/** The item a reservation puts: `IN_PROGRESS` under a fresh lease, expiring no earlier than the lease ends. */
export function reservationItem(request: ReserveRequest, nowEpochMs: number): JournalItem {
  const leaseUntilEpochMs = nowEpochMs + request.leaseMs;
  const item = newRecordItem({
    pk: request.pk,
    status: RecordStatus.inProgress,
    fingerprint: request.fingerprint,
    leaseToken: newLeaseToken(),
    leaseUntilEpochMs,
    createdAtEpochMs: nowEpochMs,
    updatedAtEpochMs: nowEpochMs,
    expiresAtEpochSeconds: leaseAwareExpiry(nowEpochMs, request.ttlSeconds, leaseUntilEpochMs),
  });
  if (request.durableExecutionArn !== undefined) item[A.durableExecution] = request.durableExecutionArn;
  return item;
}

/** The statuses a record may hold; any other value (or none) makes it unreadable. */
const KNOWN_STATUSES: ReadonlySet<unknown> = new Set(Object.values(RecordStatus));

/**
 * Decodes a journal item into a record. A chunked response is left out (`response`
 * undefined): the DynamoDB journal fetches the chunks only when it replays.
 *
 * @throws RecordUnreadableError for a status the guard does not know (or none), an attribute
 *   of the wrong type, or a stored response that does not decode: the guard fails closed on it
 */
export function recordFromItem(item: JournalItem): JournalRecord {
  const pk = item[A.pk];
  if (typeof pk !== 'string') throw new RecordUnreadableError(undefined, 'it has no string key');
  const unreadable = (reason: string) => new RecordUnreadableError(pk, reason);
  const status = item[A.status];
  if (!KNOWN_STATUSES.has(status)) {
    throw unreadable(
      status === undefined ? 'it has no status' : `status ${JSON.stringify(status)} is not one the guard knows`,
    );
  }
  const text = (name: string): string => {
    const value = item[name];
    if (typeof value !== 'string') throw unreadable(`attribute '${name}' is not a string`);
    return value;
  };
  const number = (name: string, fallback?: number): number => {
    const value = item[name] ?? fallback;
    if (typeof value !== 'number' || !Number.isFinite(value)) throw unreadable(`attribute '${name}' is not a number`);
    return value;
  };
  const evidence = item[A.evidence] ?? {};
  if (typeof evidence !== 'object' || evidence === null || Array.isArray(evidence))
    throw unreadable(`attribute '${A.evidence}' is not a map`);
  const effectStarted = item[A.effectStarted] ?? false;
  if (typeof effectStarted !== 'boolean') throw unreadable(`attribute '${A.effectStarted}' is not a boolean`);
  const effectName = item[A.effectName];
  if (effectName !== undefined && typeof effectName !== 'string')
    throw unreadable(`attribute '${A.effectName}' is not a string`);
  const durableExecution = item[A.durableExecution];
  if (durableExecution !== undefined && typeof durableExecution !== 'string')
    throw unreadable(`attribute '${A.durableExecution}' is not a string`);
  const createdAtEpochMs = number(A.createdAt, 0);
  return {
    pk,
    status: status as RecordStatus,
    fingerprint: text(A.fingerprint),
    leaseToken: text(A.leaseToken),
    leaseUntilEpochMs: number(A.leaseUntil),
    attempt: number(A.attempt, 1),
    createdAtEpochMs,
    updatedAtEpochMs: number(A.updatedAt, createdAtEpochMs),
    expiresAtEpochSeconds: item[A.expiresAt] === undefined ? undefined : number(A.expiresAt),
    response: storedResponseOf(item, pk, status as RecordStatus),
    evidence: evidence as Evidence,
    effectStarted,
    effectName,
    durableExecutionArn: durableExecution,
  };
}

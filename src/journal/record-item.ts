import type { Evidence, JournalRecord, ReserveRequest } from './journal.js';
import { leaseAwareExpiry, newLeaseToken } from './record-lifetime.js';
import { inlineResponseOf } from './stored-response.js';
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

/**
 * Decodes a journal item into a record. A chunked response is left out (`response`
 * undefined): the DynamoDB journal fetches the chunks only when it replays.
 */
export function recordFromItem(item: JournalItem): JournalRecord {
  const expiresAt = item[A.expiresAt];
  return {
    pk: item[A.pk] as string,
    status: (item[A.status] as RecordStatus | undefined) ?? RecordStatus.inProgress,
    fingerprint: (item[A.fingerprint] as string | undefined) ?? '',
    leaseToken: (item[A.leaseToken] as string | undefined) ?? '',
    leaseUntilEpochMs: Number(item[A.leaseUntil] ?? 0),
    attempt: Number(item[A.attempt] ?? 1),
    createdAtEpochMs: Number(item[A.createdAt] ?? 0),
    updatedAtEpochMs: Number(item[A.updatedAt] ?? 0),
    expiresAtEpochSeconds: expiresAt === undefined ? undefined : Number(expiresAt),
    response: inlineResponseOf(item),
    evidence: (item[A.evidence] as Evidence | undefined) ?? {},
    effectStarted: item[A.effectStarted] === true,
    effectName: item[A.effectName] as string | undefined,
    durableExecutionArn: item[A.durableExecution] as string | undefined,
  };
}

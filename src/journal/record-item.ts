import { decodeInline } from './response-codec.js';
import type { Evidence, JournalRecord } from './journal.js';
import { RecordStatus } from './schema.js';

/** A journal item as the DocumentClient returns it. */
export type JournalItem = Record<string, unknown>;

/**
 * Decodes a DynamoDB item into a record. A chunked response is left out (`response`
 * undefined, `responseChunks` set): the caller fetches the chunks only when it replays.
 */
export function recordFromItem(item: JournalItem): JournalRecord {
  const encoding = item.responseEncoding as 'json' | 'gzip' | 'chunked' | undefined;
  let response: JournalRecord['response'];
  if (encoding === 'json' || encoding === 'gzip') {
    response = decodeInline(encoding, item.response as string | Uint8Array);
  }
  return {
    pk: item.pk as string,
    status: (item.status as RecordStatus | undefined) ?? RecordStatus.inProgress,
    fingerprint: (item.fingerprint as string | undefined) ?? '',
    leaseToken: (item.leaseToken as string | undefined) ?? '',
    leaseUntilEpochMs: Number(item.leaseUntil ?? 0),
    attempt: Number(item.attempt ?? 1),
    createdAtEpochMs: Number(item.createdAt ?? 0),
    updatedAtEpochMs: Number(item.updatedAt ?? 0),
    expiresAtEpochSeconds: item.expiresAt === undefined ? undefined : Number(item.expiresAt),
    response,
    evidence: (item.evidence as Evidence | undefined) ?? {},
    effectStarted: item.effectStarted === true,
    effectName: item.effectName as string | undefined,
  };
}

/** Number of chunk items holding the record's response, 0 when it is inline. */
export function chunkCount(item: JournalItem): number {
  return item.responseEncoding === 'chunked' ? Number(item.responseChunks ?? 0) : 0;
}

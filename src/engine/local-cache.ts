import { LRUCache } from '@aws-lambda-powertools/commons/utils/lru-cache';
import { isExpired, type JournalRecord } from '../journal/index.js';

interface CachedOutcome {
  readonly fingerprint: string;
  /** The outcome as JSON text: each replay parses its own copy, exactly as a replay from DynamoDB would. */
  readonly responseJson: string;
  readonly expiresAtEpochSeconds?: number;
}

/**
 * Completed outcomes kept in the Lambda container, so a replay in a warm container costs no
 * DynamoDB call. Only `COMPLETED` records are cached: they never change until they expire.
 */
export class LocalCache {
  private readonly lru: LRUCache<string, CachedOutcome>;

  constructor(maxItems: number) {
    this.lru = new LRUCache({ maxSize: maxItems });
  }

  /** The cached outcome of `pk`, if present and not expired at `nowEpochMs`. */
  get(pk: string, nowEpochMs: number): { fingerprint: string; response: { value: unknown } } | undefined {
    const hit = this.lru.get(pk);
    if (!hit) return undefined;
    if (isExpired(hit.expiresAtEpochSeconds, nowEpochMs)) {
      this.lru.remove(pk);
      return undefined;
    }
    return { fingerprint: hit.fingerprint, response: JSON.parse(hit.responseJson) as { value: unknown } };
  }

  /** Remembers a completed record. */
  remember(record: Pick<JournalRecord, 'pk' | 'fingerprint' | 'response' | 'expiresAtEpochSeconds'>): void {
    if (!record.response) return;
    this.lru.add(record.pk, {
      fingerprint: record.fingerprint,
      responseJson: JSON.stringify(record.response),
      expiresAtEpochSeconds: record.expiresAtEpochSeconds,
    });
  }
}

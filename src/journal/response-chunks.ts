import { toJournalError } from './dynamodb-errors.js';
import { expiryFromNow } from './items.js';
import type { ItemCalls } from './item-calls.js';
import type { JournalRecord } from './journal.js';
import { chunkCount, type JournalItem } from './record-item.js';
import { decodeChunks } from './response-codec.js';
import { chunkPk, RecordKind } from './schema.js';

/**
 * The chunk items of responses too large for one record item: written (batched) before the
 * fenced completion, read back in one batch when a completed record is replayed. Chunk keys
 * carry the completing lease token, so a stalled attempt's chunks never mix with the owner's.
 */
export class ResponseChunks {
  constructor(private readonly calls: ItemCalls) {}

  /** Writes the chunks of the response `leaseToken` is about to complete `pk` with. */
  async write(pk: string, leaseToken: string, chunks: readonly Uint8Array[], nowEpochMs: number, ttlSeconds: number): Promise<void> {
    const expiresAt = expiryFromNow(nowEpochMs, ttlSeconds);
    try {
      await this.calls.putAll(chunks.map((data, i) => ({ pk: chunkPk(pk, leaseToken, i), kind: RecordKind.chunk, data, expiresAt })));
    } catch (error) {
      throw toJournalError(error, 'writeChunks');
    }
  }

  /** The record with its response reassembled, when the item says it was chunked. */
  async attach(item: JournalItem, record: JournalRecord): Promise<JournalRecord> {
    const count = chunkCount(item);
    if (count === 0) return record;
    const keys = Array.from({ length: count }, (_, i) => ({ pk: chunkPk(record.pk, record.leaseToken, i) }));
    const found = new Map<string, Uint8Array>();
    try {
      for (const chunk of await this.calls.getAll(keys)) found.set(chunk.pk as string, chunk.data as Uint8Array);
    } catch (error) {
      throw toJournalError(error, 'readChunks');
    }
    const chunks = keys.map(({ pk }) => found.get(pk));
    if (chunks.some((chunk) => chunk === undefined)) {
      throw toJournalError(new Error('Missing response chunks for a completed record'), 'readChunks');
    }
    return { ...record, response: decodeChunks(chunks as Uint8Array[]) };
  }
}

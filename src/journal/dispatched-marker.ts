import { DynamoDBClient, type AttributeValue } from '@aws-sdk/client-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import { putAllInBatches } from './item-calls.js';
import { RequestInvalidError } from '../core/index.js';
import { OUTBOX_RETENTION_SECONDS } from './completion-writes.js';
import { expiryFromNow } from './record-lifetime.js';

const TABLE_IN_STREAM_ARN = /:table\/([^/]+)\/stream\//;

/**
 * Starts the TTL of outbox items once they were sent: each item is written back (it is
 * immutable, so its stream image is the item) with `dispatchedAt` and `expiresAt`. Until
 * then an item never expires, so an event whose dispatch keeps failing stays in the table
 * for an operator to re-send, instead of vanishing.
 */
export class DispatchedMarker {
  constructor(
    private client: DynamoDBClient | undefined,
    private readonly retentionSeconds: number = OUTBOX_RETENTION_SECONDS,
    private readonly clock: () => number = Date.now,
  ) {}

  /** Marks the items of these `INSERT` records dispatched. Throws when DynamoDB refuses. */
  async mark(records: readonly DynamoDBRecord[]): Promise<void> {
    if (records.length === 0) return;
    this.client ??= new DynamoDBClient({});
    const now = this.clock();
    const byTable = new Map<string, Record<string, AttributeValue>[]>();
    for (const record of records) {
      const table = TABLE_IN_STREAM_ARN.exec(record.eventSourceARN ?? '')?.[1];
      const image = record.dynamodb?.NewImage as Record<string, AttributeValue> | undefined;
      if (!table || !image)
        throw new RequestInvalidError(
          `Stream record ${record.dynamodb?.SequenceNumber ?? '?'} names no table or image`,
        );
      const item = {
        ...image,
        dispatchedAt: { N: String(now) },
        expiresAt: { N: String(expiryFromNow(now, this.retentionSeconds)) },
      };
      byTable.set(table, [...(byTable.get(table) ?? []), item]);
    }
    for (const [table, items] of byTable) await putAllInBatches(this.client, table, items);
  }
}

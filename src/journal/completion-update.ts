import { JournalCondition } from './conditions.js';
import { expiryFromNow } from './items.js';
import type { EncodedResponse } from './response-codec.js';
import { RecordStatus } from './schema.js';

/**
 * The fenced `UpdateItem` that completes a record: status, the encoded response (inline, or
 * the number of chunk items), `updatedAt` and a fresh `expiresAt`, on condition that
 * `leaseToken` still holds it and it is not completed yet.
 */
export function completionUpdate(pk: string, leaseToken: string, encoded: EncodedResponse, now: number, ttlSeconds: number) {
  const payload = encoded.encoding === 'json' ? encoded.text : encoded.encoding === 'gzip' ? encoded.bytes : undefined;
  const sets = ['#status = :completed', 'responseEncoding = :encoding', 'updatedAt = :now', 'expiresAt = :expiresAt'];
  const values: Record<string, unknown> = {
    ':completed': RecordStatus.completed,
    ':encoding': encoded.encoding,
    ':now': now,
    ':expiresAt': expiryFromNow(now, ttlSeconds),
    ':mine': leaseToken,
  };
  if (payload !== undefined) {
    sets.push('#response = :response');
    values[':response'] = payload;
  } else {
    sets.push('responseChunks = :chunks');
    values[':chunks'] = (encoded as { chunks: readonly Uint8Array[] }).chunks.length;
  }
  return {
    Key: { pk },
    UpdateExpression: `SET ${sets.join(', ')}`,
    ConditionExpression: JournalCondition.leaseHeldNotCompleted,
    ExpressionAttributeNames: { '#status': 'status', ...(payload !== undefined ? { '#response': 'response' } : {}) },
    ExpressionAttributeValues: values,
  };
}

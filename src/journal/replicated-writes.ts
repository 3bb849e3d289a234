import { MultiRegionUnsupportedError } from '../core/index.js';
import { toAttributeMap } from './attribute-values.js';
import { tallyReplicatedConflict } from './conflict-tally.js';
import { conditionNamed, guardedItemOf, guardValuesOf, JournalGuard } from './conditions.js';
import { ItemCalls, type AwsError, type Expressions, type JournalOperation, type PlainItem } from './item-calls.js';
import type { TransactItem } from './journal.js';

/**
 * The journal's DynamoDB calls on a global table with multi-Region strong consistency (MRSC):
 * every write is one conditional single-item write, and a write refused with
 * `ReplicatedWriteConflictException` (the same item being written from another Region at the
 * same moment) is sent again within {@link REPLICATED_CONFLICT_RETRY}. When the bound is spent
 * the item is read and the write decided as any conflict is: a condition the item read would
 * fail comes back as that condition's failure with the item (the journal then answers replay,
 * 409, 422 or `LeaseLostError` from it); otherwise the conflict error stands and the journal
 * reports `journal-unavailable`.
 */

/**
 * How often a write refused by a cross-Region conflict is sent, in all, and the full-jitter
 * backoff between sends (on top of the AWS SDK's own retries, which treat the error as
 * retryable).
 */
export const REPLICATED_CONFLICT_RETRY = Object.freeze({ maxAttempts: 4, baseDelayMs: 10, maxDelayMs: 200 });

/** The error DynamoDB returns when an MRSC write conflicts with one from another Region. */
export const REPLICATED_WRITE_CONFLICT = 'ReplicatedWriteConflictException';

/** True for a cross-Region write conflict on an MRSC table. */
export function isReplicatedWriteConflict(error: unknown): boolean {
  return (error as AwsError)?.name === REPLICATED_WRITE_CONFLICT;
}

/** Single-item writes with the cross-Region conflict bound; transactions refused before they are sent. */
export class ReplicatedItemCalls extends ItemCalls {
  override put(operation: JournalOperation, item: PlainItem, expressions: Parameters<ItemCalls['put']>[2]) {
    return this.bounded({ pk: item.pk }, expressions, () => super.put(operation, item, expressions));
  }

  override update(operation: JournalOperation, key: PlainItem, expressions: Parameters<ItemCalls['update']>[2]) {
    return this.bounded(key, expressions, () => super.update(operation, key, expressions));
  }

  override delete(operation: JournalOperation, key: PlainItem, expressions: Parameters<ItemCalls['delete']>[2]) {
    return this.bounded(key, expressions, () => super.delete(operation, key, expressions));
  }

  override putAll(operation: JournalOperation, items: readonly PlainItem[]) {
    // Chunk items are written unconditionally under a key no other attempt uses: a resend is harmless.
    return this.bounded(undefined, {}, () => super.putAll(operation, items));
  }

  override transactWrite(operation: JournalOperation, items: readonly TransactItem[]): Promise<void> {
    void operation;
    void items;
    return Promise.reject(new MultiRegionUnsupportedError('stage()'));
  }

  private async bounded<T>(key: PlainItem | undefined, expressions: Expressions, send: () => Promise<T>): Promise<T> {
    const { maxAttempts, baseDelayMs, maxDelayMs } = REPLICATED_CONFLICT_RETRY;
    for (let attempt = 1; ; attempt++) {
      try {
        return await send();
      } catch (error) {
        if (!isReplicatedWriteConflict(error)) throw error;
        tallyReplicatedConflict();
        if (attempt >= maxAttempts) throw await this.decided(key, expressions, error);
        await new Promise((resolve) =>
          setTimeout(resolve, Math.random() * Math.min(maxDelayMs, baseDelayMs * 2 ** attempt)),
        );
      }
    }
  }

  /** The error a write spent on conflicts ends with: its condition's failure if the item read says so, else the conflict. */
  private async decided(key: PlainItem | undefined, expressions: Expressions, conflict: unknown): Promise<unknown> {
    if (!key || !expressions.ConditionExpression) return conflict;
    const item = await this.get('get', key);
    const holds = conditionHolds(expressions.ConditionExpression, item, expressions.ExpressionAttributeValues ?? {});
    // A condition the item read satisfies (or one not decided here) leaves the write undone: the conflict stands.
    if (holds !== false) return conflict;
    return Object.assign(new Error('The conditional request failed (decided on the item read after a conflict)'), {
      name: 'ConditionalCheckFailedException',
      Item: item ? toAttributeMap(item) : undefined,
      cause: conflict,
    });
  }
}

/**
 * The journal's own conditions evaluated on an item read, as DynamoDB would (through
 * {@link JournalGuard}, by the condition's name): undefined for an expression that is not one of
 * them (the conflict then stands).
 */
function conditionHolds(
  condition: string,
  item: PlainItem | undefined,
  values: Record<string, unknown>,
): boolean | undefined {
  const name = conditionNamed(condition);
  return name === undefined ? undefined : JournalGuard[name](guardedItemOf(item), guardValuesOf(values));
}

import { IdempotencyError } from '../core/index.js';
import { messageBytes, type OutboxMessage } from './outbox-message.js';

/** Where the dispatcher sends events: one implementation per destination service. */
export interface OutboxPublisher {
  /** The queue URL or bus name, for log lines. */
  readonly destination: string;
  /**
   * Sends one batch (at most {@link MAX_BATCH_ENTRIES} messages) in order and tells which
   * entry failed first; a thrown error counts as a failure of the whole batch.
   */
  publish(messages: readonly OutboxMessage[]): Promise<PublishOutcome>;
}

/** The first entry of a batch that was not sent, or `sent` when every entry was. */
export type PublishOutcome =
  { readonly kind: 'sent' } | { readonly kind: 'failed'; readonly index: number; readonly reason: string };

/** Entries per `SendMessageBatch` / `PutEvents` call. */
export const MAX_BATCH_ENTRIES = 10;

/**
 * Aggregate payload per call. Both services cap a whole request at 256 KiB (a queue may
 * allow more, but not every queue does); a larger single event still goes alone.
 */
export const MAX_BATCH_BYTES = 256 * 1024;

/** Per-entry overhead allowed for attributes, ids and envelope fields. */
const ENTRY_OVERHEAD_BYTES = 512;

/** Cuts messages into consecutive batches within the entry and size limits, order kept. */
export function batchesOf(messages: readonly OutboxMessage[]): OutboxMessage[][] {
  const batches: OutboxMessage[][] = [];
  let current: OutboxMessage[] = [];
  let currentBytes = 0;
  for (const message of messages) {
    const bytes = messageBytes(message) + ENTRY_OVERHEAD_BYTES;
    if (current.length > 0 && (current.length === MAX_BATCH_ENTRIES || currentBytes + bytes > MAX_BATCH_BYTES)) {
      batches.push(current);
      current = [];
      currentBytes = 0;
    }
    current.push(message);
    currentBytes += bytes;
  }
  if (current.length > 0) batches.push(current);
  return batches;
}

/** A failure outcome for a thrown send. */
export function thrownOutcome(error: unknown): PublishOutcome {
  const name = (error as { name?: string })?.name ?? 'Error';
  return { kind: 'failed', index: 0, reason: `${name}: ${error instanceof Error ? error.message : String(error)}` };
}

/**
 * The answer to a destination's SDK client that is not installed: it is an optional peer
 * dependency, loaded only by dispatchers that send there. Used as `import(name).catch(...)`,
 * which also lets bundlers build a handler that never dispatches without the package.
 */
export function missingPeer(packageName: string): (error: unknown) => never {
  return function rejectMissingPeer(error: unknown): never {
    throw new IdempotencyError(
      'missing-dependency',
      `${packageName} is not installed; this destination needs it (npm install ${packageName})`,
      {
        cause: error,
      },
    );
  };
}

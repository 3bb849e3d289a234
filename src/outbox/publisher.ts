import { IdempotencyError, InvalidOptionsError } from '../core/index.js';
import { messageBytes, type OutboxMessage, OUTBOX_EVENT_ID_ATTRIBUTE } from './outbox-message.js';
import type { SendMessageBatchRequestEntry, SQSClient } from '@aws-sdk/client-sqs';
import type { EventBridgeClient, PutEventsRequestEntry } from '@aws-sdk/client-eventbridge';

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
function thrownOutcome(error: unknown): PublishOutcome {
  const name = (error as { name?: string })?.name ?? 'Error';
  return { kind: 'failed', index: 0, reason: `${name}: ${error instanceof Error ? error.message : String(error)}` };
}

/**
 * The answer to a destination's SDK client that is not installed: it is an optional peer
 * dependency, loaded only by dispatchers that send there. Used as `import(name).catch(...)`,
 * which also lets bundlers build a handler that never dispatches without the package.
 */
function missingPeer(packageName: string): (error: unknown) => never {
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

/** True for a FIFO queue URL (its name ends in `.fifo`). */
export function isFifoQueueUrl(queueUrl: string): boolean {
  return queueUrl.endsWith('.fifo');
}

/**
 * An AWS SDK v3 client as the dispatcher holds it: an `SQSClient` for a queue, an
 * `EventBridgeClient` for a bus. Declared by its shape, so the declarations of `idemkit` and
 * `idemkit/outbox` never need those optional peers installed (a consumer with `skipLibCheck: false`
 * that uses no EventBridge type-checks without `@aws-sdk/client-eventbridge`).
 *
 * @example const client: AwsSdkClient = new SQSClient({});
 */
export interface AwsSdkClient {
  /** Sends one command, as every AWS SDK v3 client does. */
  send(command: never, ...rest: never[]): Promise<unknown>;
}

/**
 * Sends outbox events to an SQS queue: body `{ eventId, type, detail, occurredAt }`,
 * String attribute `eventId`. On a FIFO queue the event id is the deduplication id, so a
 * dispatch retry within SQS's five-minute window is dropped by the queue itself.
 */
export class SqsPublisher implements OutboxPublisher {
  private readonly fifo: boolean;
  private client: SQSClient | undefined;

  constructor(
    client: AwsSdkClient | undefined,
    private readonly queueUrl: string,
    private readonly messageGroupId: (message: OutboxMessage) => string,
  ) {
    this.client = client as SQSClient | undefined;
    this.fifo = isFifoQueueUrl(queueUrl);
  }

  get destination(): string {
    return this.queueUrl;
  }

  async publish(messages: readonly OutboxMessage[]): Promise<PublishOutcome> {
    let entries: SendMessageBatchRequestEntry[];
    try {
      entries = messages.map((message, index) => this.entryOf(message, index));
    } catch (error) {
      return thrownOutcome(error);
    }
    try {
      // Loaded on first use: a handler that only imports the toolkit never pays for the SQS client at cold start.
      const sqs = await import('@aws-sdk/client-sqs').catch(missingPeer('@aws-sdk/client-sqs'));
      this.client ??= new sqs.SQSClient({});
      const out = await this.client.send(
        new sqs.SendMessageBatchCommand({ QueueUrl: this.queueUrl, Entries: entries }),
      );
      const failures = (out.Failed ?? []).map((failure) => ({
        index: Number(failure.Id),
        reason: `${failure.Code ?? 'Failed'}: ${failure.Message ?? ''}`,
      }));
      if (failures.length === 0) return { kind: 'sent' };
      const first = failures.reduce((a, b) => (b.index < a.index ? b : a));
      return { kind: 'failed', index: first.index, reason: first.reason };
    } catch (error) {
      return thrownOutcome(error);
    }
  }

  private entryOf(message: OutboxMessage, index: number): SendMessageBatchRequestEntry {
    const entry: SendMessageBatchRequestEntry = {
      Id: String(index),
      MessageBody: JSON.stringify(message),
      MessageAttributes: { [OUTBOX_EVENT_ID_ATTRIBUTE]: { DataType: 'String', StringValue: message.eventId } },
    };
    if (!this.fifo) return entry;
    const group = this.messageGroupId(message);
    if (typeof group !== 'string' || group.length === 0)
      throw new InvalidOptionsError(`messageGroupId returned no group for event ${message.eventId}`);
    return { ...entry, MessageDeduplicationId: message.eventId, MessageGroupId: group };
  }
}

/**
 * Sends outbox events to an EventBridge bus with `PutEvents`: `Source` from the options,
 * `DetailType` the event type, `Detail` the message `{ eventId, type, detail, occurredAt }`.
 * EventBridge does not deduplicate: targets deduplicate on `detail.eventId`.
 */
export class EventBridgePublisher implements OutboxPublisher {
  private client: EventBridgeClient | undefined;

  constructor(
    client: AwsSdkClient | undefined,
    private readonly eventBusName: string,
    private readonly source: string,
  ) {
    this.client = client as EventBridgeClient | undefined;
  }

  get destination(): string {
    return this.eventBusName;
  }

  async publish(messages: readonly OutboxMessage[]): Promise<PublishOutcome> {
    try {
      // Loaded on first use, like the SQS client: no cold-start cost for handlers that never dispatch.
      const eventBridge = await import('@aws-sdk/client-eventbridge').catch(missingPeer('@aws-sdk/client-eventbridge'));
      this.client ??= new eventBridge.EventBridgeClient({});
      const out = await this.client.send(
        new eventBridge.PutEventsCommand({ Entries: messages.map((message) => this.entryOf(message)) }),
      );
      if (!out.FailedEntryCount) return { kind: 'sent' };
      const index = (out.Entries ?? []).findIndex((entry) => entry.ErrorCode !== undefined);
      const failed = out.Entries?.[index];
      return {
        kind: 'failed',
        index: Math.max(index, 0),
        reason: `${failed?.ErrorCode ?? 'Failed'}: ${failed?.ErrorMessage ?? ''}`,
      };
    } catch (error) {
      return thrownOutcome(error);
    }
  }

  private entryOf(message: OutboxMessage): PutEventsRequestEntry {
    const time = new Date(message.occurredAt);
    return {
      EventBusName: this.eventBusName,
      Source: this.source,
      DetailType: message.type,
      Detail: JSON.stringify(message),
      ...(Number.isNaN(time.getTime()) ? {} : { Time: time }),
    };
  }
}

import { InvalidOptionsError } from '../core/index.js';
import type { SendMessageBatchRequestEntry, SQSClient } from '@aws-sdk/client-sqs';
import { OUTBOX_EVENT_ID_ATTRIBUTE, type OutboxMessage } from './outbox-message.js';
import { missingPeer, thrownOutcome, type OutboxPublisher, type PublishOutcome } from './publisher.js';

/** True for a FIFO queue URL (its name ends in `.fifo`). */
export function isFifoQueueUrl(queueUrl: string): boolean {
  return queueUrl.endsWith('.fifo');
}

/**
 * Sends outbox events to an SQS queue: body `{ eventId, type, detail, occurredAt }`,
 * String attribute `eventId`. On a FIFO queue the event id is the deduplication id, so a
 * dispatch retry within SQS's five-minute window is dropped by the queue itself.
 */
export class SqsPublisher implements OutboxPublisher {
  private readonly fifo: boolean;

  constructor(
    private client: SQSClient | undefined,
    private readonly queueUrl: string,
    private readonly messageGroupId: (message: OutboxMessage) => string,
  ) {
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

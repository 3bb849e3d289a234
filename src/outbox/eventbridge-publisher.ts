import type { EventBridgeClient, PutEventsRequestEntry } from '@aws-sdk/client-eventbridge';
import type { OutboxMessage } from './outbox-message.js';
import { missingPeer, thrownOutcome, type OutboxPublisher, type PublishOutcome } from './publisher.js';

/**
 * Sends outbox events to an EventBridge bus with `PutEvents`: `Source` from the options,
 * `DetailType` the event type, `Detail` the message `{ eventId, type, detail, occurredAt }`.
 * EventBridge does not deduplicate: targets deduplicate on `detail.eventId`.
 */
export class EventBridgePublisher implements OutboxPublisher {
  constructor(
    private client: EventBridgeClient | undefined,
    private readonly eventBusName: string,
    private readonly source: string,
  ) {}

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

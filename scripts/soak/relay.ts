import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { DynamoDBJournal } from '../../src/index.js';
import { createOrderEventsConsumer } from '../../src/handlers/factories/order-events-consumer.js';
import { localLambdaContext } from '../local/lambda-context.js';
import type { LocalPaymentsStack } from '../local/payments-stack.js';
import { deleteMessages, queueDepth, receiveMessages } from '../local/sqs-queues.js';
import { toSqsRecord } from '../local/sqs-records.js';
import { seededRandom } from '../retry-storm/seeded-random.js';
import { addDynamoDBFaults, noFaultsFired, type CallFaults } from './dynamodb-faults.js';
import type { FaultPlanner } from './fault-schedule.js';
import type { RunRecord } from './run-record.js';
import { outboxDispatcher } from '../../src/outbox/index.js';
import { RecordPrefix } from '../../src/entries/journal.js';

/** Options of {@link SoakRelay}. */
export interface SoakRelayOptions {
  readonly stack: LocalPaymentsStack;
  readonly planner: FaultPlanner;
  readonly record: RunRecord;
  readonly faultsActive: () => boolean;
  readonly seed: number;
  /** The consumer's Lambda timeout; its lease ends a second later. */
  readonly consumerTimeoutMs: number;
  /** Messages per consumer invocation, like the event source mapping's `BatchSize`. */
  readonly batchSize: number;
}

const IDLE_MS = 500;

/**
 * The event side of the example service, as the stream and queue event source mappings run
 * it in AWS: the journal's stream feeds the outbox dispatcher, which sends to the
 * order-events queue; the queue feeds the order-events consumer (stock reserved once per
 * event). Faults on the run's schedule: a stream batch dispatched twice (the dispatcher's
 * checkpoint not moved), a consumed batch redelivered (its messages not deleted, as after a
 * crash between the handler and the delete), and the DynamoDB throttling and latency windows
 * on the consumer's own client.
 *
 * @example
 * const relay = new SoakRelay({ stack, planner, record, faultsActive, seed: 1, consumerTimeoutMs: 3_000, batchSize: 5 });
 * relay.start();
 * await relay.drain(60_000);
 * await relay.stop();
 */
export class SoakRelay {
  private readonly dispatch: ReturnType<typeof outboxDispatcher>;
  private readonly consume: (event: SQSEvent) => Promise<SQSBatchResponse>;
  private readonly random: () => number;
  private consumerFaults?: CallFaults;
  private running?: Promise<void>;
  private stopped = false;
  /** Work done by the last pass: stream records read, messages received. */
  private lastPass = { records: 0, messages: 0 };

  constructor(private readonly options: SoakRelayOptions) {
    const { stack, record } = options;
    this.random = seededRandom(options.seed ^ 0xbeef);
    const consumerClient = new DynamoDBClient({
      endpoint: stack.dynamodb.endpoint,
      region: 'us-east-1',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    });
    addDynamoDBFaults(consumerClient, () => this.consumerFaults);
    const journal = new DynamoDBJournal({ tableName: stack.tables.journal, client: consumerClient });
    const logger = countingLogger(record);
    const consumer = createOrderEventsConsumer({ journal, stockTable: stack.tables.stock, guardOptions: { logger } });
    this.consume = (event) =>
      consumer(event, localLambdaContext({ functionName: 'order-events', timeoutMs: options.consumerTimeoutMs }));
    this.dispatch = outboxDispatcher({
      queueUrl: stack.orderEvents.url,
      client: stack.sqsClient,
      journalClient: stack.client,
      logger,
    });
  }

  /** Starts relaying in the background. */
  start(): void {
    this.running = this.loop();
  }

  /**
   * Waits until the stream holds nothing new and the queue is empty (visible and in flight)
   * on two checks in a row; false when `timeoutMs` passed first.
   */
  async drain(timeoutMs: number): Promise<boolean> {
    const endAt = Date.now() + timeoutMs;
    let quietChecks = 0;
    while (Date.now() < endAt) {
      await sleep(1_000);
      const depth = await queueDepth(this.options.stack.sqsClient, this.options.stack.orderEvents.url);
      quietChecks = depth === 0 && this.lastPass.records === 0 && this.lastPass.messages === 0 ? quietChecks + 1 : 0;
      if (quietChecks >= 2) return true;
    }
    return false;
  }

  /** Stops after the current pass. */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.running;
  }

  private async loop(): Promise<void> {
    while (!this.stopped) {
      try {
        const records = await this.relayOutbox();
        const messages = await this.consumeQueue();
        this.lastPass = { records, messages };
        if (records === 0 && messages === 0) await sleep(IDLE_MS);
      } catch (error) {
        this.lastPass = { records: 1, messages: 1 };
        process.stderr.write(`relay: ${(error as Error).message}\n`);
        await sleep(IDLE_MS);
      }
    }
  }

  /** One stream batch to the dispatcher; a due redispatch fault leaves the checkpoint where it was. */
  private async relayOutbox(): Promise<number> {
    const { stack, planner, record } = this.options;
    const event = await stack.outboxStream.read();
    if (event.Records.length === 0) return 0;
    const response = (await this.dispatch(event)) ?? undefined;
    const outboxInserts = event.Records.filter(
      (r) => r.eventName === 'INSERT' && r.dynamodb?.Keys?.pk?.S?.startsWith(RecordPrefix.outbox),
    ).length;
    if (outboxInserts > 0 && this.options.faultsActive() && planner.takeQueueFault('outbox-redispatch', record.now())) {
      record.fault('outbox-redispatch', outboxInserts);
      return event.Records.length;
    }
    stack.outboxStream.acknowledge(event, response);
    return event.Records.length;
  }

  /** One receive-invoke-delete cycle; a due redelivery fault deletes nothing, as a crash before the delete would. */
  private async consumeQueue(): Promise<number> {
    const { stack, planner, record } = this.options;
    const messages = await receiveMessages(stack.sqsClient, stack.orderEvents.url, {
      max: this.options.batchSize,
      waitSeconds: 0,
    });
    if (messages.length === 0) return 0;
    const active = this.options.faultsActive();
    const startedAtMs = record.now();
    const windows = active ? planner.windowsAt(record.now()) : { throttleShare: 0, latencyShare: 0, latencyMs: 0 };
    const fired = noFaultsFired();
    this.consumerFaults = { random: this.random, ...windows, fired };
    let response: SQSBatchResponse;
    try {
      response = await this.consume({ Records: messages.map((message) => toSqsRecord(message, stack.orderEvents)) });
    } finally {
      this.consumerFaults = undefined;
      record.fault('dynamodb-throttle', fired.throttled, startedAtMs);
      record.fault('dynamodb-latency', fired.delayed, startedAtMs);
    }
    const failed = new Set(response.batchItemFailures.map((failure) => failure.itemIdentifier));
    const succeeded = messages.filter((message) => !failed.has(message.MessageId!));
    if (succeeded.length > 0 && active && planner.takeQueueFault('sqs-redelivery', record.now())) {
      record.fault('sqs-redelivery', succeeded.length);
      return messages.length;
    }
    await deleteMessages(stack.sqsClient, stack.orderEvents.url, succeeded);
    return messages.length;
  }
}

/** A logger for the guard and the dispatcher that counts the guard's lines instead of printing them. */
function countingLogger(record: RunRecord): never {
  const line = (level: string) => (message: string, fields?: Record<string, unknown>) =>
    record.guardLogLine(JSON.stringify({ level, message, ...fields }));
  return { debug: () => undefined, info: line('INFO'), warn: line('WARN'), error: line('ERROR') } as never;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  assertKnownOptions,
  IdemkitEnvironment,
  InvalidOptionsError,
  readFunction,
  readNumber,
  readString,
  readClient,
} from '../core/index.js';
import { defaultLogger, type LogSink } from '../telemetry/index.js';
import { DispatchedMarker, OUTBOX_RETENTION_SECONDS } from '../journal/index.js';
import {
  type AwsSdkClient,
  EventBridgePublisher,
  type OutboxPublisher,
  isFifoQueueUrl,
  SqsPublisher,
} from './publisher.js';
import type { OutboxMessage } from './outbox-message.js';

/** Options both destinations accept. */
interface DispatcherCommonOptions {
  /**
   * Client of the journal table, used to start the TTL of dispatched items (`BatchWriteItem`).
   * @default new DynamoDBClient({})
   */
  readonly journalClient?: DynamoDBClient;
  /**
   * How long a dispatched outbox item stays in the journal before DynamoDB TTL removes it, in seconds.
   * @default 604800 (seven days)
   */
  readonly retentionSeconds?: number;
  /**
   * A Powertools `Logger` for the dispatch log lines.
   * @default a `Logger` of service `POWERTOOLS_SERVICE_NAME` or 'idemkit', at `POWERTOOLS_LOG_LEVEL`
   */
  readonly logger?: LogSink;
}

/** Dispatch to an SQS queue. */
export interface QueueDispatchOptions extends DispatcherCommonOptions {
  /** The queue's URL; a name ending in `.fifo` makes it a FIFO queue. */
  readonly queueUrl: string;
  readonly eventBusName?: never;
  /**
   * The SQS client (an `SQSClient` of `@aws-sdk/client-sqs`).
   * @default new SQSClient({})
   */
  readonly client?: AwsSdkClient;
  /**
   * Message group of an event on a FIFO queue (events of one group stay in order).
   * Only valid with a FIFO queue.
   * @default the event type
   * @example (message) => (message.detail as { orderId: string }).orderId
   */
  readonly messageGroupId?: (message: OutboxMessage) => string;
}

/** Dispatch to an EventBridge bus. */
export interface EventBusDispatchOptions extends DispatcherCommonOptions {
  /** The bus name or ARN. */
  readonly eventBusName: string;
  readonly queueUrl?: never;
  /**
   * The EventBridge client (an `EventBridgeClient` of `@aws-sdk/client-eventbridge`).
   * @default new EventBridgeClient({})
   */
  readonly client?: AwsSdkClient;
  /**
   * `Source` of every event put on the bus.
   * @default 'idemkit.outbox'
   */
  readonly source?: string;
}

/**
 * Dispatch to the destination the environment names: `IDEMKIT_OUTBOX_QUEUE_URL` or
 * `IDEMKIT_OUTBOX_EVENT_BUS_NAME` (exactly one), as the `OutboxDispatcher` construct sets them.
 * The client is the default one of that destination.
 */
export interface EnvironmentDispatchOptions extends DispatcherCommonOptions {
  readonly queueUrl?: undefined;
  readonly eventBusName?: undefined;
  readonly client?: undefined;
}

/**
 * Options of `outboxDispatcher`: `queueUrl` or `eventBusName`, or neither to take the
 * destination from the environment the `OutboxDispatcher` construct sets.
 *
 * @example {} // the construct's destination
 * @example { queueUrl: 'https://sqs.eu-west-1.amazonaws.com/123456789012/order-events' }
 * @example { eventBusName: 'payments', source: 'payments.service' }
 */
export type OutboxDispatcherOptions = QueueDispatchOptions | EventBusDispatchOptions | EnvironmentDispatchOptions;

/** Default `Source` of events put on a bus. */
export const DEFAULT_EVENT_SOURCE = 'idemkit.outbox';

/** Defaults of {@link OutboxDispatcherOptions} (a FIFO queue's message group defaults to the event type). */
export const DEFAULT_OUTBOX_DISPATCHER_OPTIONS = Object.freeze({
  /** How long a dispatched outbox item stays in the journal table before TTL removes it: 7 days. */
  retentionSeconds: OUTBOX_RETENTION_SECONDS,
  source: DEFAULT_EVENT_SOURCE,
});

const FACTORY = 'outboxDispatcher';
const COMMON_OPTION_NAMES = ['logger', 'journalClient', 'retentionSeconds'];
const QUEUE_OPTION_NAMES = ['queueUrl', 'client', 'messageGroupId', ...COMMON_OPTION_NAMES];
const BUS_OPTION_NAMES = ['eventBusName', 'client', 'source', ...COMMON_OPTION_NAMES];

/** What a dispatcher needs, resolved once per factory call. */
export interface DispatcherSettings {
  readonly publisher: OutboxPublisher;
  readonly marker: DispatchedMarker;
  readonly logger: LogSink;
}

/** Validates dispatcher options (unknown names throw, naming the option) and builds the publisher. */
export function resolveDispatcherOptions(given: OutboxDispatcherOptions = {}): DispatcherSettings {
  assertKnownOptions(FACTORY, given, [...new Set([...QUEUE_OPTION_NAMES, ...BUS_OPTION_NAMES])]);
  const options =
    given.queueUrl === undefined && given.eventBusName === undefined
      ? withEnvironmentDestination(given as EnvironmentDispatchOptions)
      : given;
  const hasQueue = options.queueUrl !== undefined;
  const hasBus = options.eventBusName !== undefined;
  if (hasQueue === hasBus)
    throw new InvalidOptionsError(`${FACTORY}: set exactly one of 'queueUrl' and 'eventBusName'`);
  assertKnownOptions(FACTORY, options, hasQueue ? QUEUE_OPTION_NAMES : BUS_OPTION_NAMES);
  readClient(FACTORY, 'client', options.client, 'an AWS SDK v3 client');
  readClient(FACTORY, 'journalClient', options.journalClient, 'a DynamoDBClient');
  const logger = options.logger ?? defaultLogger();
  const marker = new DispatchedMarker(
    options.journalClient,
    readNumber(
      FACTORY,
      'retentionSeconds',
      options.retentionSeconds,
      DEFAULT_OUTBOX_DISPATCHER_OPTIONS.retentionSeconds,
      { min: 1, integer: true },
    ),
  );
  if (hasQueue) {
    const queue = options as QueueDispatchOptions;
    readString(FACTORY, 'queueUrl', queue.queueUrl, undefined);
    readFunction(FACTORY, 'messageGroupId', queue.messageGroupId, undefined);
    if (queue.messageGroupId !== undefined && !isFifoQueueUrl(queue.queueUrl)) {
      throw new InvalidOptionsError(`${FACTORY}: 'messageGroupId' applies only to a FIFO queue (URL ending in .fifo)`);
    }
    const publisher = new SqsPublisher(
      queue.client,
      queue.queueUrl,
      queue.messageGroupId ?? ((message) => message.type),
    );
    return { publisher, marker, logger };
  }
  const bus = options as EventBusDispatchOptions;
  readString(FACTORY, 'eventBusName', bus.eventBusName, undefined);
  readString(FACTORY, 'source', bus.source, undefined);
  const publisher = new EventBridgePublisher(
    bus.client,
    bus.eventBusName,
    bus.source ?? DEFAULT_OUTBOX_DISPATCHER_OPTIONS.source,
  );
  return { publisher, marker, logger };
}

function withEnvironmentDestination(options: EnvironmentDispatchOptions): OutboxDispatcherOptions {
  const queueUrl = process.env[IdemkitEnvironment.outboxQueueUrl] || undefined;
  const eventBusName = process.env[IdemkitEnvironment.outboxEventBusName] || undefined;
  if (Boolean(queueUrl) === Boolean(eventBusName)) {
    throw new InvalidOptionsError(
      `${FACTORY}: set exactly one of 'queueUrl' and 'eventBusName', or exactly one of ${IdemkitEnvironment.outboxQueueUrl} and ${IdemkitEnvironment.outboxEventBusName}`,
    );
  }
  if (options.client !== undefined) {
    throw new InvalidOptionsError(`${FACTORY}: 'client' needs an explicit 'queueUrl' or 'eventBusName'`);
  }
  return queueUrl ? { ...options, queueUrl } : { ...options, eventBusName: eventBusName! };
}

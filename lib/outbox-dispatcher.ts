import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { Duration, Validations } from 'aws-cdk-lib';
import {
  Alarm,
  ComparisonOperator,
  TreatMissingData,
  type IAlarmAction,
  type Metric,
  type MetricOptions,
} from 'aws-cdk-lib/aws-cloudwatch';
import type { IEventBus } from 'aws-cdk-lib/aws-events';
import { FilterCriteria, FilterRule, StartingPosition, type Runtime } from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource, SqsDlq } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import type { IQueue, Queue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { IdemkitEnvironment } from '../src/core/environment.js';
import { PARTITION_KEY, RecordAttribute, RecordPrefix } from '../src/journal/schema.js';
import { RecordStatus } from '../src/core/journal-record.js';
import { IdemkitFunction } from './idemkit-function.js';
import { queueDepthMetric } from './idempotency-metric.js';
import type { IIdempotencyJournal } from './journal-table.js';
import { secureQueue } from './secure-queue.js';

/** Properties of an {@link OutboxDispatcher}. Give exactly one of `destinationQueue` and `eventBus`. */
export interface OutboxDispatcherProps {
  /** The journal whose stream carries the outbox events. */
  readonly journal: IIdempotencyJournal;
  /**
   * Path to the handler entry file: `export const handler = outboxDispatcher();` sends to
   * the destination this construct sets in `IDEMKIT_OUTBOX_QUEUE_URL` or `IDEMKIT_OUTBOX_EVENT_BUS_NAME`.
   */
  readonly entry: string;
  /**
   * Name of the exported handler.
   * @default 'handler'
   */
  readonly handler?: string;
  /**
   * Queue the events are sent to (FIFO queues get `MessageDeduplicationId = eventId`).
   * @default - none; then `eventBus` is required
   */
  readonly destinationQueue?: IQueue;
  /**
   * EventBridge bus the events are put on.
   * @default - none; then `destinationQueue` is required
   */
  readonly eventBus?: IEventBus;
  /**
   * `POWERTOOLS_SERVICE_NAME` of the function.
   * @default 'idemkit'
   */
  readonly serviceName?: string;
  /**
   * Stream records per invocation.
   * @default 25
   */
  readonly batchSize?: number;
  /**
   * Retries of a failing batch (halved by bisection) before its records go to the failure queue.
   * @default 10
   */
  readonly retryAttempts?: number;
  /**
   * Oldest record the event source still delivers.
   * @default Duration.days(1)
   */
  readonly maxRecordAge?: Duration;
  /**
   * How long to gather a batch.
   * @default - no batching window
   */
  readonly maxBatchingWindow?: Duration;
  /**
   * Lambda runtime of the dispatcher function (Node.js `nodejs22.x` or `nodejs24.x`).
   * @default DEFAULT_FUNCTION_RUNTIME (Runtime.NODEJS_24_X)
   */
  readonly runtime?: Runtime;
  /**
   * Function timeout.
   * @default Duration.seconds(30)
   */
  readonly timeout?: Duration;
  /**
   * Action run when the failure-queue alarm fires.
   * @default - the alarm has no action
   */
  readonly alarmAction?: IAlarmAction;
}

/**
 * Reads `outbox#` inserts from the journal's stream and forwards each event to a queue or an
 * event bus, with partial batch failures, bisection, bounded retries and a failure queue
 * that keeps the stream record's coordinates when an event cannot be delivered.
 *
 * @example
 * // src/outbox.ts: export const handler = outboxDispatcher();
 * new OutboxDispatcher(this, 'Outbox', { journal, entry: 'src/outbox.ts', destinationQueue });
 */
export class OutboxDispatcher extends Construct {
  /** The dispatcher function. */
  public readonly function: NodejsFunction;
  /** Receives the coordinates of stream batches that exhausted their retries. */
  public readonly failureQueue: Queue;
  /** The stream event source. */
  public readonly eventSource: DynamoEventSource;
  /** Fires when the failure queue holds at least one message. */
  public readonly failureAlarm: Alarm;

  constructor(scope: Construct, id: string, props: OutboxDispatcherProps) {
    super(scope, id);
    if (Boolean(props.destinationQueue) === Boolean(props.eventBus)) {
      throw new Error(`OutboxDispatcher ${this.node.path}: give exactly one of 'destinationQueue' and 'eventBus'`);
    }
    if (!props.journal.tableStreamArn) {
      throw new Error(
        `OutboxDispatcher ${this.node.path}: the journal has no stream; import it with IdempotencyJournalTable.fromTableAttributes(scope, id, { tableName, tableStreamArn })`,
      );
    }
    const destinationEnv: Record<string, string> = props.destinationQueue
      ? { [IdemkitEnvironment.outboxQueueUrl]: props.destinationQueue.queueUrl }
      : { [IdemkitEnvironment.outboxEventBusName]: props.eventBus!.eventBusName };

    this.function = new IdemkitFunction(this, 'Dispatcher', {
      entry: props.entry,
      handler: props.handler,
      serviceName: props.serviceName,
      runtime: props.runtime,
      timeout: props.timeout ?? Duration.seconds(30),
      environment: destinationEnv,
    }).function;
    props.destinationQueue?.grantSendMessages(this.function);
    props.eventBus?.grantPutEventsTo(this.function);
    // Starting the TTL of sent items: batch writes back to the journal, limited to outbox keys.
    this.function.addToRolePolicy(
      new PolicyStatement({
        actions: ['dynamodb:BatchWriteItem'],
        resources: [props.journal.tableArn],
        conditions: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [`${RecordPrefix.outbox}*`] } },
      }),
    );

    this.failureQueue = secureQueue(this, 'FailureQueue', { retentionPeriod: Duration.days(14) });
    this.eventSource = new DynamoEventSource(props.journal.table, {
      startingPosition: StartingPosition.TRIM_HORIZON,
      batchSize: props.batchSize ?? 25,
      maxBatchingWindow: props.maxBatchingWindow,
      retryAttempts: props.retryAttempts ?? 10,
      maxRecordAge: props.maxRecordAge ?? Duration.days(1),
      bisectBatchOnError: true,
      reportBatchItemFailures: true,
      onFailure: new SqsDlq(this.failureQueue),
      filters: [
        FilterCriteria.filter({
          eventName: FilterRule.isEqual('INSERT'),
          dynamodb: { Keys: { [PARTITION_KEY]: { S: FilterRule.beginsWith(RecordPrefix.outbox) } } },
        }),
        // A multi-Region journal's completions carry their events inside the record (MRSC has no transactions).
        FilterCriteria.filter({
          eventName: FilterRule.or('INSERT', 'MODIFY'),
          dynamodb: {
            NewImage: {
              [RecordAttribute.status]: { S: FilterRule.isEqual(RecordStatus.completed) },
              [RecordAttribute.outboxEvents]: { S: FilterRule.exists() },
            },
          },
        }),
      ],
    });
    this.function.addEventSource(this.eventSource);

    this.failureAlarm = new Alarm(this, 'FailureAlarm', {
      alarmDescription:
        'Outbox events could not be delivered after every retry; their stream coordinates wait in the failure queue.',
      metric: this.metricFailureQueueDepth(),
      threshold: 0,
      comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 1,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });
    if (props.alarmAction) this.failureAlarm.addAlarmAction(props.alarmAction);

    Validations.of(this.failureQueue).acknowledge({
      id: 'AwsSolutions-SQS3',
      reason: 'This queue is itself the on-failure destination of the stream event source.',
    });
    Validations.of(this.function).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason: 'dynamodb:ListStreams and X-Ray writes support no resource-level permissions.',
    });
  }

  /** Messages visible in the failure queue (maximum per minute). */
  public metricFailureQueueDepth(props?: MetricOptions): Metric {
    return queueDepthMetric(this.failureQueue, props);
  }

  /** Age of the oldest stream record the dispatcher has not processed yet (maximum per minute). */
  public metricIteratorAge(props?: MetricOptions): Metric {
    return this.function.metric('IteratorAge', { statistic: 'Maximum', period: Duration.minutes(1), ...props });
  }
}

import { Duration, Names } from 'aws-cdk-lib';
import {
  Alarm,
  ComparisonOperator,
  TreatMissingData,
  type IAlarmAction,
  type IMetric,
  type MetricOptions,
  type Metric,
} from 'aws-cdk-lib/aws-cloudwatch';
import type { Grant, IGrantable } from 'aws-cdk-lib/aws-iam';
import type { Runtime } from 'aws-cdk-lib/aws-lambda';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { IdemkitEnvironment } from '../src/core/environment.js';
import { MetricName } from '../src/telemetry/metric-names.js';
import { IdemkitFunction } from './idemkit-function.js';
import { idempotencyMetric, queueDepthMetric, type IdempotencyMetricOptions } from './idempotency-metric.js';
import type { IIdempotencyJournal } from './journal-table.js';
import { secureQueue } from './secure-queue.js';

/** Properties of a {@link GuardedQueueConsumer}. */
export interface GuardedQueueConsumerProps {
  /** The journal the consumer records processed messages in. */
  readonly journal: IIdempotencyJournal;
  /**
   * Path to the handler entry file: an `sqsConsumer(...)` export, whose `consumer` defaults to
   * the `IDEMKIT_CONSUMER` this construct sets.
   */
  readonly entry: string;
  /**
   * Name of the exported handler.
   * @default 'handler'
   */
  readonly handler?: string;
  /**
   * Consumer name: part of every inbox record key and the `Consumer` metric dimension; set
   * as `IDEMKIT_CONSUMER`, which `sqsConsumer` reads when its `consumer` option is absent.
   * @default - the construct's id
   */
  readonly consumerName?: string;
  /**
   * `POWERTOOLS_SERVICE_NAME` of the function.
   * @default 'idemkit'
   */
  readonly serviceName?: string;
  /**
   * Extra environment variables of the function.
   * @default - only the toolkit's variables
   */
  readonly environment?: Record<string, string>;
  /**
   * Whether the queue (and its DLQ) are FIFO. Content-based deduplication stays off:
   * producers set `MessageDeduplicationId`.
   * @default false
   */
  readonly fifo?: boolean;
  /**
   * Queue name; the DLQ is named `<name>-dlq`. FIFO names get the `.fifo` suffix.
   * @default - generated (FIFO: derived from the construct path, ending in `.fifo`)
   */
  readonly queueName?: string;
  /**
   * Receives before a message moves to the DLQ.
   * @default 5
   */
  readonly maxReceiveCount?: number;
  /**
   * Messages per invocation.
   * @default 10
   */
  readonly batchSize?: number;
  /**
   * How long to gather a batch.
   * @default - no batching window
   */
  readonly maxBatchingWindow?: Duration;
  /**
   * Maximum concurrent invocations by the event source (2–1000).
   * @default - no limit
   */
  readonly maxConcurrency?: number;
  /**
   * Lambda runtime of the consumer function (Node.js `nodejs22.x` or `nodejs24.x`).
   * @default DEFAULT_FUNCTION_RUNTIME (Runtime.NODEJS_24_X)
   */
  readonly runtime?: Runtime;
  /**
   * Function timeout.
   * @default Duration.seconds(30)
   */
  readonly timeout?: Duration;
  /**
   * Queue visibility timeout; AWS advises at least six times the function timeout.
   * @default - six times `timeout`
   */
  readonly visibilityTimeout?: Duration;
  /**
   * How long dead letters are kept.
   * @default Duration.days(14)
   */
  readonly deadLetterRetentionPeriod?: Duration;
  /**
   * CloudWatch namespace of the runtime's metrics.
   * @default DEFAULT_METRICS_NAMESPACE ('Idempotency')
   */
  readonly metricsNamespace?: string;
  /**
   * Action run when the DLQ alarm fires (for example an SNS topic).
   * @default - the alarm has no action
   */
  readonly alarmAction?: IAlarmAction;
}

/**
 * A queue, its dead-letter queue and a guarded consumer function: partial batch failures,
 * journal access, and an alarm as soon as one message lands in the DLQ.
 *
 * @example
 * // src/order-events.ts: export const handler = sqsConsumer(reserveStock, { journal: new DynamoDBJournal() });
 * const consumer = new GuardedQueueConsumer(this, 'OrderEvents', { journal, entry: 'src/order-events.ts', fifo: true });
 */
export class GuardedQueueConsumer extends Construct {
  /** The consumed queue. */
  public readonly queue: Queue;
  /** Where messages go after `maxReceiveCount` failed receives. */
  public readonly deadLetterQueue: Queue;
  /** The consumer function. */
  public readonly function: NodejsFunction;
  /** The event source mapping's source. */
  public readonly eventSource: SqsEventSource;
  /** Fires when the DLQ holds at least one message. */
  public readonly deadLetterAlarm: Alarm;
  /** The consumer name (the `Consumer` metric dimension). */
  public readonly consumerName: string;
  private readonly metricsNamespace?: string;

  constructor(scope: Construct, id: string, props: GuardedQueueConsumerProps) {
    super(scope, id);
    const fifo = props.fifo ?? false;
    const timeout = props.timeout ?? Duration.seconds(30);
    this.consumerName = props.consumerName ?? id;
    this.metricsNamespace = props.metricsNamespace;
    const names = queueNames(
      props.queueName ?? (fifo ? Names.uniqueResourceName(this, { maxLength: 70 }) : undefined),
      fifo,
    );

    const fifoProps = fifo ? { fifo: true, contentBasedDeduplication: false } : {};
    this.deadLetterQueue = secureQueue(this, 'DeadLetterQueue', {
      ...fifoProps,
      queueName: names?.deadLetter,
      retentionPeriod: props.deadLetterRetentionPeriod ?? Duration.days(14),
    });
    this.queue = secureQueue(this, 'Queue', {
      ...fifoProps,
      queueName: names?.main,
      visibilityTimeout: props.visibilityTimeout ?? Duration.seconds(timeout.toSeconds() * 6),
      deadLetterQueue: { queue: this.deadLetterQueue, maxReceiveCount: props.maxReceiveCount ?? 5 },
    });

    this.function = new IdemkitFunction(this, 'Consumer', {
      entry: props.entry,
      handler: props.handler,
      journal: props.journal,
      serviceName: props.serviceName,
      metricsNamespace: props.metricsNamespace,
      runtime: props.runtime,
      timeout,
      environment: { [IdemkitEnvironment.consumer]: this.consumerName, ...props.environment },
    }).function;
    this.eventSource = new SqsEventSource(this.queue, {
      batchSize: props.batchSize ?? 10,
      maxBatchingWindow: props.maxBatchingWindow,
      maxConcurrency: props.maxConcurrency,
      reportBatchItemFailures: true,
    });
    this.function.addEventSource(this.eventSource);

    this.deadLetterAlarm = new Alarm(this, 'DeadLetterAlarm', {
      alarmDescription: `Messages of consumer ${this.consumerName} failed ${props.maxReceiveCount ?? 5} times and wait in its DLQ.`,
      metric: this.metricDeadLetterDepth(),
      threshold: 0,
      comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 1,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });
    if (props.alarmAction) this.deadLetterAlarm.addAlarmAction(props.alarmAction);
  }

  /** Grants `sqs:SendMessage` (and the queue key, if any) on the consumed queue. */
  public grantSendMessages(grantee: IGrantable): Grant {
    return this.queue.grantSendMessages(grantee);
  }

  /** Messages visible in the DLQ (maximum per minute). */
  public metricDeadLetterDepth(props?: MetricOptions): Metric {
    return queueDepthMetric(this.deadLetterQueue, props);
  }

  /** Deliveries the journal recognised as already processed (sum per period). */
  public metricDuplicateSuppressed(options?: IdempotencyMetricOptions): IMetric {
    return this.metricRuntime(MetricName.duplicateSuppressed, options);
  }

  /** Messages processed for the first time (sum per period). */
  public metricNewMessages(options?: IdempotencyMetricOptions): IMetric {
    return this.metricRuntime(MetricName.newRequest, options);
  }

  private metricRuntime(name: MetricName, options?: IdempotencyMetricOptions): IMetric {
    return idempotencyMetric(name, { consumer: this.consumerName }, { namespace: this.metricsNamespace, ...options });
  }
}

function queueNames(baseName: string | undefined, fifo: boolean): { main: string; deadLetter: string } | undefined {
  if (baseName === undefined) return undefined;
  const base = baseName.replace(/\.fifo$/, '');
  const suffix = fifo ? '.fifo' : '';
  return { main: `${base}${suffix}`, deadLetter: `${base}-dlq${suffix}` };
}

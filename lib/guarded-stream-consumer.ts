import { Duration, Validations } from 'aws-cdk-lib';
import {
  Alarm,
  ComparisonOperator,
  TreatMissingData,
  type IAlarmAction,
  type IMetric,
  type Metric,
  type MetricOptions,
} from 'aws-cdk-lib/aws-cloudwatch';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import type { IStream } from 'aws-cdk-lib/aws-kinesis';
import { Runtime, StartingPosition } from 'aws-cdk-lib/aws-lambda';
import { DEFAULT_FUNCTION_RUNTIME } from './function-runtime.js';
import { DynamoEventSource, KinesisEventSource, SqsDlq } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { IdemkitEnvironment } from '../src/core/environment.js';
import { MetricName } from '../src/telemetry/metric-names.js';
import { IdemkitFunction } from './idemkit-function.js';
import { idempotencyMetric, queueDepthMetric, type IdempotencyMetricOptions } from './idempotency-metric.js';
import type { IIdempotencyJournal } from './journal-table.js';
import { secureQueue } from './secure-queue.js';

/** Properties of a {@link GuardedStreamConsumer}. */
export interface GuardedStreamConsumerProps {
  /** The journal the consumer records processed records in. */
  readonly journal: IIdempotencyJournal;
  /**
   * The Kinesis stream consumed (its handler a `kinesisConsumer(...)` export). Exactly one of
   * `stream` and `table`.
   * @default - no stream: `table` is consumed
   */
  readonly stream?: IStream;
  /**
   * The table whose DynamoDB stream is consumed (its handler a `dynamodbStreamConsumer(...)`
   * export); it needs a stream (`stream: StreamViewType...` or, imported, `tableStreamArn`).
   * Exactly one of `stream` and `table`.
   * @default - no table: `stream` is consumed
   */
  readonly table?: ITable;
  /** Path to the handler entry file, whose `consumer` defaults to the `IDEMKIT_CONSUMER` this construct sets. */
  readonly entry: string;
  /**
   * Name of the exported handler.
   * @default 'handler'
   */
  readonly handler?: string;
  /**
   * Consumer name: part of every inbox record key and the `Consumer` metric dimension; set as
   * `IDEMKIT_CONSUMER`.
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
   * Lambda runtime of the function.
   * @default DEFAULT_FUNCTION_RUNTIME (nodejs24.x)
   */
  readonly runtime?: Runtime;
  /**
   * Where a new event source mapping starts reading.
   * @default StartingPosition.TRIM_HORIZON (nothing already in the stream is skipped)
   */
  readonly startingPosition?: StartingPosition;
  /**
   * Records per invocation (Kinesis and DynamoDB Streams: 1–10000).
   * @default 100
   */
  readonly batchSize?: number;
  /**
   * How long to gather a batch.
   * @default - no batching window
   */
  readonly maxBatchingWindow?: Duration;
  /**
   * Batches of one shard processed at once (1–10). Records of one partition key stay in order;
   * the journal keeps two batches that meet the same message id from both running it.
   * @default 1
   */
  readonly parallelizationFactor?: number;
  /**
   * Retries of a failed batch before its records go to the on-failure destination. Bounded, so
   * one poison record cannot hold its shard until the record expires.
   * @default 10
   */
  readonly retryAttempts?: number;
  /**
   * Oldest record the event source still hands over; older ones go to the on-failure destination.
   * @default Duration.days(1)
   */
  readonly maxRecordAge?: Duration;
  /**
   * Function timeout.
   * @default Duration.seconds(30)
   */
  readonly timeout?: Duration;
  /**
   * How long the on-failure destination keeps what it receives.
   * @default Duration.days(14)
   */
  readonly failureRetentionPeriod?: Duration;
  /**
   * Iterator age (in the stream, the age of the newest record handed over) at which the
   * consumer counts as falling behind.
   * @default Duration.minutes(5)
   */
  readonly iteratorAgeThreshold?: Duration;
  /**
   * CloudWatch namespace of the runtime's metrics.
   * @default DEFAULT_METRICS_NAMESPACE ('Idempotency')
   */
  readonly metricsNamespace?: string;
  /**
   * Action run when an alarm fires (for example an SNS topic).
   * @default - the alarms have no action
   */
  readonly alarmAction?: IAlarmAction;
}

/**
 * A guarded consumer of an ordered stream: the function, a Kinesis or DynamoDB Streams event
 * source with partial batch responses, a bounded retry count, an SQS on-failure destination
 * for the records of batches that exhausted it, and alarms on iterator age and on the
 * destination's depth.
 *
 * `bisectBatchOnError` stays off: the guard reports the exact record that failed (the one
 * batch item failure), so Lambda resumes there and nothing is gained by splitting the batch;
 * splitting would only re-deliver completed records, which the guard then skips.
 *
 * @example
 * // src/read-model.ts: export const handler = dynamodbStreamConsumer(project, { journal: new DynamoDBJournal() });
 * new GuardedStreamConsumer(this, 'ReadModel', { journal, table: paymentsTable, entry: 'src/read-model.ts' });
 */
export class GuardedStreamConsumer extends Construct {
  /** The consumer function. */
  public readonly function: NodejsFunction;
  /** The event source mapping's source. */
  public readonly eventSource: KinesisEventSource | DynamoEventSource;
  /** Receives a description of every batch the event source gave up on (retries or record age exhausted). */
  public readonly failureQueue: Queue;
  /** Fires when the consumer falls behind the stream. */
  public readonly iteratorAgeAlarm: Alarm;
  /** Fires as soon as the on-failure destination holds one message. */
  public readonly failureAlarm: Alarm;
  /** The consumer name (the `Consumer` metric dimension). */
  public readonly consumerName: string;
  private readonly metricsNamespace?: string;

  constructor(scope: Construct, id: string, props: GuardedStreamConsumerProps) {
    super(scope, id);
    if ((props.stream === undefined) === (props.table === undefined)) {
      throw new Error(
        `GuardedStreamConsumer ${this.node.path}: give exactly one of 'stream' (Kinesis) and 'table' (DynamoDB Streams)`,
      );
    }
    if (props.table && !props.table.tableStreamArn) {
      throw new Error(
        `GuardedStreamConsumer ${this.node.path}: the table has no stream (enable one, or import it with tableStreamArn)`,
      );
    }
    this.consumerName = props.consumerName ?? id;
    this.metricsNamespace = props.metricsNamespace;
    const retryAttempts = props.retryAttempts ?? 10;

    this.failureQueue = secureQueue(this, 'FailureQueue', {
      retentionPeriod: props.failureRetentionPeriod ?? Duration.days(14),
    });
    this.function = new IdemkitFunction(this, 'Consumer', {
      entry: props.entry,
      handler: props.handler,
      journal: props.journal,
      serviceName: props.serviceName,
      metricsNamespace: props.metricsNamespace,
      runtime: props.runtime ?? DEFAULT_FUNCTION_RUNTIME,
      timeout: props.timeout ?? Duration.seconds(30),
      environment: { [IdemkitEnvironment.consumer]: this.consumerName, ...props.environment },
    }).function;

    const settings = {
      startingPosition: props.startingPosition ?? StartingPosition.TRIM_HORIZON,
      batchSize: props.batchSize ?? 100,
      maxBatchingWindow: props.maxBatchingWindow,
      parallelizationFactor: props.parallelizationFactor ?? 1,
      retryAttempts,
      maxRecordAge: props.maxRecordAge ?? Duration.days(1),
      bisectBatchOnError: false,
      reportBatchItemFailures: true,
      onFailure: new SqsDlq(this.failureQueue),
    };
    this.eventSource = props.stream
      ? new KinesisEventSource(props.stream, settings)
      : new DynamoEventSource(props.table!, settings);
    this.function.addEventSource(this.eventSource);

    this.iteratorAgeAlarm = new Alarm(this, 'IteratorAgeAlarm', {
      alarmDescription: `Consumer ${this.consumerName} is falling behind its stream.`,
      metric: this.metricIteratorAge(),
      threshold: (props.iteratorAgeThreshold ?? Duration.minutes(5)).toMilliseconds(),
      comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 3,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });
    this.failureAlarm = new Alarm(this, 'FailureAlarm', {
      alarmDescription: `Batches of consumer ${this.consumerName} failed ${retryAttempts} retries (or aged out) and are described in its failure queue.`,
      metric: this.metricFailureQueueDepth(),
      threshold: 0,
      comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 1,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });
    if (props.alarmAction) {
      this.iteratorAgeAlarm.addAlarmAction(props.alarmAction);
      this.failureAlarm.addAlarmAction(props.alarmAction);
    }
    Validations.of(this.failureQueue).acknowledge({
      id: 'AwsSolutions-SQS3',
      reason: 'This queue is itself the on-failure destination of the stream event source.',
    });
  }

  /** Age of the newest record the function was handed, in milliseconds (maximum per minute). */
  public metricIteratorAge(props?: MetricOptions): Metric {
    return this.function.metric('IteratorAge', { statistic: 'Maximum', period: Duration.minutes(1), ...props });
  }

  /** Messages visible in the on-failure destination (maximum per minute). */
  public metricFailureQueueDepth(props?: MetricOptions): Metric {
    return queueDepthMetric(this.failureQueue, props);
  }

  /** Redelivered records the journal recognised as already processed (sum per period). */
  public metricDuplicateSuppressed(options?: IdempotencyMetricOptions): IMetric {
    return this.metricRuntime(MetricName.duplicateSuppressed, options);
  }

  /** Records processed for the first time (sum per period). */
  public metricNewMessages(options?: IdempotencyMetricOptions): IMetric {
    return this.metricRuntime(MetricName.newRequest, options);
  }

  private metricRuntime(name: MetricName, options?: IdempotencyMetricOptions): IMetric {
    return idempotencyMetric(name, { consumer: this.consumerName }, { namespace: this.metricsNamespace, ...options });
  }
}

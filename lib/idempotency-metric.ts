import { Duration } from 'aws-cdk-lib';
import {
  MathExpression,
  SearchExpression,
  type IMetric,
  type Metric,
  type MetricOptions,
} from 'aws-cdk-lib/aws-cloudwatch';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { DEFAULT_METRICS_NAMESPACE, MetricDimension, type MetricName } from '../src/telemetry/metric-names.js';

/** Which guarded unit a runtime metric belongs to: an HTTP/function operation or a queue consumer. */
export type MetricSubject = { readonly operation: string } | { readonly consumer: string };

/** Options of {@link idempotencyMetric} and {@link idempotencyMetricSearch}. */
export interface IdempotencyMetricOptions {
  /**
   * CloudWatch namespace the runtime publishes to.
   * @default DEFAULT_METRICS_NAMESPACE ('Idempotency')
   */
  readonly namespace?: string;
  /**
   * Aggregation period.
   * @default Duration.minutes(5)
   */
  readonly period?: Duration;
  /**
   * Label in graphs.
   * @default - the metric name and the operation or consumer
   */
  readonly label?: string;
}

/**
 * One runtime metric of one operation or consumer, summed per period, usable in alarms and
 * graphs. It is a Metrics Insights query filtered on the `Operation`/`Consumer` dimension,
 * so it matches whatever other dimensions the metrics library adds (Powertools adds
 * `service`). Names come from the runtime's own constants and cannot drift.
 *
 * @example
 * idempotencyMetric(MetricName.payloadMismatch, { operation: 'POST /payments' }).createAlarm(this, 'Mismatch', {...})
 */
export function idempotencyMetric(
  metricName: MetricName,
  subject: MetricSubject,
  options: IdempotencyMetricOptions = {},
): IMetric {
  const [dimension, value] =
    'operation' in subject
      ? [MetricDimension.operation, subject.operation]
      : [MetricDimension.consumer, subject.consumer];
  if (value.includes("'")) throw new Error(`Metric dimension values cannot contain a single quote: ${value}`);
  return new MathExpression({
    expression: `SELECT SUM(${metricName}) FROM "${namespaceOf(options)}" WHERE ${dimension} = '${value}'`,
    usingMetrics: {},
    period: options.period ?? Duration.minutes(5),
    label: options.label ?? `${metricName} ${value}`,
  });
}

/**
 * Every series of one runtime metric that carries the given dimension (all operations, or
 * all consumers), for graphs. Search expressions cannot back alarms.
 *
 * @example idempotencyMetricSearch(MetricName.replay, MetricDimension.operation)
 */
export function idempotencyMetricSearch(
  metricName: MetricName,
  dimension: (typeof MetricDimension)[keyof typeof MetricDimension],
  options: IdempotencyMetricOptions = {},
): IMetric {
  const period = options.period ?? Duration.minutes(5);
  return new SearchExpression({
    expression: `SEARCH('Namespace="${namespaceOf(options)}" MetricName="${metricName}" ${dimension}', 'Sum', ${period.toSeconds()})`,
    label: options.label ?? dimension,
    period,
  });
}

function namespaceOf(options: IdempotencyMetricOptions): string {
  return options.namespace ?? DEFAULT_METRICS_NAMESPACE;
}

/**
 * Messages visible in a queue, maximum per minute unless `props` say otherwise: what the
 * dead-letter and failure queue alarms and graphs read.
 *
 * @example queueDepthMetric(consumer.deadLetterQueue).createAlarm(this, 'Dlq', { threshold: 0, evaluationPeriods: 1 })
 */
export function queueDepthMetric(queue: IQueue, props?: MetricOptions): Metric {
  return queue.metricApproximateNumberOfMessagesVisible({
    statistic: 'Maximum',
    period: Duration.minutes(1),
    ...props,
  });
}

import { Duration } from 'aws-cdk-lib';
import { Metric, type MetricOptions } from 'aws-cdk-lib/aws-cloudwatch';
import { DEFAULT_METRICS_NAMESPACE, MetricDimension, type MetricName } from '../src/telemetry/metric-names.js';

/** Which guarded unit a runtime metric belongs to: an HTTP/function operation or a queue consumer. */
export type MetricSubject = { readonly operation: string } | { readonly consumer: string };

/** Options of {@link idempotencyMetric}. */
export interface IdempotencyMetricOptions extends MetricOptions {
  /**
   * CloudWatch namespace the runtime publishes to.
   * @default DEFAULT_METRICS_NAMESPACE ('Idempotency')
   */
  readonly namespace?: string;
}

/**
 * One runtime metric (Embedded Metric Format) for one operation or consumer, summed per
 * period. Names and dimensions come from the runtime's own constants, so they cannot drift.
 *
 * @example
 * idempotencyMetric(MetricName.replay, { operation: 'POST /payments' }).createAlarm(...)
 */
export function idempotencyMetric(
  metricName: MetricName,
  subject: MetricSubject,
  options: IdempotencyMetricOptions = {},
): Metric {
  const dimensionsMap: Record<string, string> =
    'operation' in subject
      ? { [MetricDimension.operation]: subject.operation }
      : { [MetricDimension.consumer]: subject.consumer };
  return new Metric({
    statistic: 'Sum',
    period: Duration.minutes(5),
    ...options,
    namespace: options.namespace ?? DEFAULT_METRICS_NAMESPACE,
    metricName,
    dimensionsMap,
  });
}

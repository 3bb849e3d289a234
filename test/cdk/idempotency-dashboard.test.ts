import { Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { IdempotencyDashboard, IdempotencyJournalTable, secureQueue } from '../../lib/index.js';
import { DEFAULT_METRICS_NAMESPACE, MetricDimension, MetricName } from '../../src/telemetry/metric-names.js';
import { testApp } from './test-app.js';

/** The dashboard body as JSON text, CloudFormation tokens replaced by `TOKEN`. */
function dashboardBody(template: Template): string {
  const body = Object.values(template.findResources('AWS::CloudWatch::Dashboard'))[0].Properties.DashboardBody;
  if (typeof body === 'string') return body;
  const parts: unknown[] = body['Fn::Join'][1];
  return parts.map((part) => (typeof part === 'string' ? part : 'TOKEN')).join('');
}

/** Every metric-math or search expression graphed on the dashboard. */
function expressions(template: Template): string[] {
  const widgets: Array<{ properties?: { metrics?: unknown[][] } }> = JSON.parse(dashboardBody(template)).widgets;
  return widgets.flatMap((widget) =>
    (widget.properties?.metrics ?? []).flatMap((metric) =>
      metric
        .filter(
          (entry): entry is { expression: string } =>
            typeof entry === 'object' && entry !== null && 'expression' in entry,
        )
        .map((entry) => entry.expression),
    ),
  );
}

describe('IdempotencyDashboard', () => {
  const app = testApp();
  const bare = new Stack(app, 'Bare');
  new IdempotencyDashboard(bare, 'Dashboard');

  const full = new Stack(app, 'Full');
  new IdempotencyDashboard(full, 'Dashboard', {
    dashboardName: 'payments',
    operations: ['POST /payments'],
    consumers: ['order-events'],
    deadLetterQueues: [secureQueue(full, 'Dlq')],
    journal: new IdempotencyJournalTable(full, 'Journal'),
    journalThrottledThreshold: 20,
    alarmAction: new SnsAction(new Topic(full, 'Topic', { enforceSSL: true })),
  });

  const custom = new Stack(app, 'Custom');
  new IdempotencyDashboard(custom, 'Dashboard', {
    namespace: 'Shop',
    operations: ['checkout'],
    deadLetterQueues: [secureQueue(custom, 'Dlq')],
    alarmOnDeadLetterQueues: false,
  });

  const bareTemplate = Template.fromStack(bare);
  const template = Template.fromStack(full);
  const customTemplate = Template.fromStack(custom);

  it('graphs every runtime metric by Operation and Consumer in the default namespace', () => {
    const graphed = expressions(bareTemplate);
    for (const name of Object.values(MetricName)) {
      for (const dimension of Object.values(MetricDimension)) {
        expect(graphed).toContain(
          `SEARCH('Namespace="${DEFAULT_METRICS_NAMESPACE}" MetricName="${name}" ${dimension}', 'Sum', 300)`,
        );
      }
    }
  });

  it('creates no alarm when nothing is listed', () => {
    bareTemplate.resourceCountIs('AWS::CloudWatch::Alarm', 0);
  });

  it.each([MetricName.payloadMismatch, MetricName.unknownAfterEffect, MetricName.journalError])(
    'alarms on %s for each operation and consumer, whatever other dimensions the metric carries',
    (metricName) => {
      for (const [dimension, value] of [
        [MetricDimension.operation, 'POST /payments'],
        [MetricDimension.consumer, 'order-events'],
      ]) {
        template.hasResourceProperties('AWS::CloudWatch::Alarm', {
          Metrics: [
            Match.objectLike({
              Expression: `SELECT SUM(${metricName}) FROM "${DEFAULT_METRICS_NAMESPACE}" WHERE ${dimension} = '${value}'`,
              Period: 300,
            }),
          ],
          ComparisonOperator: 'GreaterThanThreshold',
          Threshold: 0,
          TreatMissingData: 'notBreaching',
        });
      }
    },
  );

  it.each([
    ['the given threshold', () => template, 20],
    ['the first throttle by default', () => customTemplate, 0],
  ])('alarms on JournalThrottled above %s, for each operation', (_name, stack, threshold) => {
    stack().hasResourceProperties('AWS::CloudWatch::Alarm', {
      Metrics: [
        Match.objectLike({ Expression: Match.stringLikeRegexp(`^SELECT SUM\\(${MetricName.journalThrottled}\\)`) }),
      ],
      ComparisonOperator: 'GreaterThanThreshold',
      Threshold: threshold,
      TreatMissingData: 'notBreaching',
    });
  });

  it('alarms on dead-letter depth and sends every alarm to the action', () => {
    template.resourceCountIs('AWS::CloudWatch::Alarm', 9);
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: 'AWS/SQS',
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Threshold: 0,
    });
    template.allResourcesProperties('AWS::CloudWatch::Alarm', {
      AlarmActions: [{ Ref: Match.stringLikeRegexp('^Topic') }],
    });
  });

  it('adds journal table graphs and an alarm status widget', () => {
    template.hasResourceProperties('AWS::CloudWatch::Dashboard', { DashboardName: 'payments' });
    const body = dashboardBody(template);
    expect(body).toContain('TransactionConflict');
    expect(body).toContain('ConditionalCheckFailedRequests');
    expect(JSON.parse(body).widgets.map((widget: { type: string }) => widget.type)).toContain('alarm');
  });

  it('uses the given namespace and leaves DLQ alarms to the caller when asked', () => {
    customTemplate.resourceCountIs('AWS::CloudWatch::Alarm', 4);
    customTemplate.allResourcesProperties('AWS::CloudWatch::Alarm', {
      Metrics: [Match.objectLike({ Expression: Match.stringLikeRegexp('FROM "Shop" WHERE Operation = \'checkout\'') })],
    });
    expect(dashboardBody(customTemplate)).toContain('ApproximateNumberOfMessagesVisible');
  });

  it('derives alarm ids from names, so listing one more operation replaces no alarm', () => {
    const alarmIds = (operations: string[]) => {
      const stack = new Stack(testApp(), 'Ids');
      new IdempotencyDashboard(stack, 'Dashboard', { operations, deadLetterQueues: [secureQueue(stack, 'Dlq')] });
      return Object.keys(Template.fromStack(stack).findResources('AWS::CloudWatch::Alarm'));
    };
    const before = alarmIds(['POST /payments', 'POST /payments/{id}/refunds']);
    const after = alarmIds(['GET /health', 'POST /payments', 'POST /payments/{id}/refunds']);

    expect(after).toEqual(expect.arrayContaining(before));
    expect(after).toHaveLength(before.length + 4);
  });
});

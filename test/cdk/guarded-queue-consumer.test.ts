import { Duration, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { GuardedQueueConsumer, IdempotencyJournalTable } from '../../lib/index.js';
import { MetricDimension, MetricName } from '../../src/telemetry/metric-names.js';
import { actionsOf, CONSUMER_ENTRY, policyStatements, resourcesOf, testApp } from './test-app.js';

describe('GuardedQueueConsumer', () => {
  const app = testApp();
  const standard = new Stack(app, 'Standard');
  const consumer = new GuardedQueueConsumer(standard, 'Orders', {
    journal: new IdempotencyJournalTable(standard, 'Journal'),
    entry: CONSUMER_ENTRY,
  });
  const fifo = new Stack(app, 'Fifo');
  new GuardedQueueConsumer(fifo, 'Orders', {
    journal: new IdempotencyJournalTable(fifo, 'Journal'),
    entry: CONSUMER_ENTRY,
    fifo: true,
    queueName: 'orders',
    consumerName: 'orders-v2',
    maxReceiveCount: 3,
    batchSize: 5,
    timeout: Duration.seconds(20),
  });
  const generatedFifo = new Stack(app, 'GeneratedFifo');
  new GuardedQueueConsumer(generatedFifo, 'Orders', {
    journal: new IdempotencyJournalTable(generatedFifo, 'Journal'),
    entry: CONSUMER_ENTRY,
    fifo: true,
  });
  const template = Template.fromStack(standard);
  const fifoTemplate = Template.fromStack(fifo);
  const generatedFifoTemplate = Template.fromStack(generatedFifo);

  it('creates a queue and a dead-letter queue with a redrive after 5 receives', () => {
    template.resourceCountIs('AWS::SQS::Queue', 2);
    template.hasResourceProperties('AWS::SQS::Queue', {
      RedrivePolicy: {
        deadLetterTargetArn: { 'Fn::GetAtt': [Match.stringLikeRegexp('DeadLetterQueue'), 'Arn'] },
        maxReceiveCount: 5,
      },
      VisibilityTimeout: 180,
    });
    template.hasResourceProperties('AWS::SQS::Queue', { MessageRetentionPeriod: Duration.days(14).toSeconds() });
  });

  it('encrypts both queues and refuses requests without TLS', () => {
    expect(
      Object.keys(template.findResources('AWS::SQS::Queue', { Properties: { SqsManagedSseEnabled: true } })),
    ).toHaveLength(2);
    template.resourceCountIs('AWS::SQS::QueuePolicy', 2);
    template.allResourcesProperties('AWS::SQS::QueuePolicy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Effect: 'Deny',
            Action: 'sqs:*',
            Condition: { Bool: { 'aws:SecureTransport': 'false' } },
          }),
        ]),
      },
    });
  });

  it('runs a traced nodejs24.x function with JSON logs and the journal environment', () => {
    template.hasResourceProperties('AWS::Lambda::Function', {
      Runtime: 'nodejs24.x',
      TracingConfig: { Mode: 'Active' },
      LoggingConfig: Match.objectLike({ LogFormat: 'JSON' }),
      Timeout: 30,
      Environment: {
        Variables: Match.objectLike({
          IDEMKIT_TABLE_NAME: { Ref: Match.stringLikeRegexp('^JournalTable') },
          IDEMKIT_CONSUMER: 'Orders',
          POWERTOOLS_SERVICE_NAME: 'idemkit',
        }),
      },
    });
  });

  it('reports partial batch failures from the SQS event source', () => {
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      EventSourceArn: { 'Fn::GetAtt': [Match.stringLikeRegexp('^OrdersQueue'), 'Arn'] },
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      BatchSize: 10,
    });
  });

  it('alarms as soon as one message waits in the dead-letter queue', () => {
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: 'AWS/SQS',
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Dimensions: [
        { Name: 'QueueName', Value: { 'Fn::GetAtt': [Match.stringLikeRegexp('DeadLetterQueue'), 'QueueName'] } },
      ],
      ComparisonOperator: 'GreaterThanThreshold',
      Threshold: 0,
      EvaluationPeriods: 1,
      TreatMissingData: 'notBreaching',
    });
  });

  it('grants journal access on the table ARN, never on *', () => {
    const dynamo = policyStatements(template).filter(({ statement }) =>
      actionsOf(statement).some((a) => a.startsWith('dynamodb:')),
    );
    expect(dynamo.length).toBeGreaterThan(0);
    for (const { statement } of dynamo) expect(resourcesOf(statement)).not.toContain('*');
    expect(dynamo.flatMap(({ statement }) => actionsOf(statement))).toEqual(
      expect.arrayContaining(['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:ConditionCheckItem']),
    );
  });

  it('makes FIFO queues without content-based deduplication, named .fifo', () => {
    fifoTemplate.hasResourceProperties('AWS::SQS::Queue', {
      QueueName: 'orders.fifo',
      FifoQueue: true,
      ContentBasedDeduplication: false,
    });
    fifoTemplate.hasResourceProperties('AWS::SQS::Queue', {
      QueueName: 'orders-dlq.fifo',
      FifoQueue: true,
      ContentBasedDeduplication: false,
    });
    const names = Object.values(generatedFifoTemplate.findResources('AWS::SQS::Queue')).map(
      (queue) => queue.Properties.QueueName,
    );
    expect(names).toHaveLength(2);
    for (const name of names) expect(name).toMatch(/^[\w-]{1,75}\.fifo$/);
  });

  it('honours maxReceiveCount, batchSize, timeout and consumerName', () => {
    fifoTemplate.hasResourceProperties('AWS::SQS::Queue', {
      RedrivePolicy: Match.objectLike({ maxReceiveCount: 3 }),
      VisibilityTimeout: 120,
    });
    fifoTemplate.hasResourceProperties('AWS::Lambda::EventSourceMapping', { BatchSize: 5 });
    fifoTemplate.hasResourceProperties('AWS::Lambda::Function', {
      Timeout: 20,
      Environment: { Variables: Match.objectLike({ IDEMKIT_CONSUMER: 'orders-v2' }) },
    });
  });

  it('exposes the runtime metrics of its consumer', () => {
    const expression = consumer.metricDuplicateSuppressed().toMetricConfig().mathExpression!.expression;
    expect(expression).toBe(
      `SELECT SUM(${MetricName.duplicateSuppressed}) FROM "Idempotency" WHERE ${MetricDimension.consumer} = 'Orders'`,
    );
  });
});

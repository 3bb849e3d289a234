import { Duration, Stack, Validations } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { AttributeType, BillingMode, StreamViewType, Table } from 'aws-cdk-lib/aws-dynamodb';
import { Stream, StreamEncryption } from 'aws-cdk-lib/aws-kinesis';
import { Runtime, StartingPosition } from 'aws-cdk-lib/aws-lambda';
import { AwsSolutionsChecks } from 'cdk-nag';
import { GuardedStreamConsumer, IdempotencyJournalTable } from '../../lib/index.js';
import { MetricDimension, MetricName } from '../../src/telemetry/metric-names.js';
import { actionsOf, CONSUMER_ENTRY, policyStatements, resourcesOf, testApp } from './test-app.js';

describe('GuardedStreamConsumer', () => {
  const app = testApp();
  const kinesisStack = new Stack(app, 'Kinesis');
  const stream = new Stream(kinesisStack, 'Orders', { encryption: StreamEncryption.MANAGED });
  const kinesisConsumer = new GuardedStreamConsumer(kinesisStack, 'OrderStream', {
    journal: new IdempotencyJournalTable(kinesisStack, 'Journal'),
    stream,
    entry: CONSUMER_ENTRY,
  });
  const tableStack = new Stack(app, 'Table');
  const payments = new Table(tableStack, 'Payments', {
    partitionKey: { name: 'paymentId', type: AttributeType.STRING },
    billingMode: BillingMode.PAY_PER_REQUEST,
    pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
    stream: StreamViewType.NEW_AND_OLD_IMAGES,
  });
  new GuardedStreamConsumer(tableStack, 'ReadModel', {
    journal: new IdempotencyJournalTable(tableStack, 'Journal'),
    table: payments,
    entry: CONSUMER_ENTRY,
    consumerName: 'payments-read-model',
    parallelizationFactor: 4,
    retryAttempts: 3,
    batchSize: 25,
    startingPosition: StartingPosition.LATEST,
    runtime: Runtime.NODEJS_22_X,
    iteratorAgeThreshold: Duration.minutes(1),
  });
  Validations.of(tableStack).acknowledge({
    id: 'AwsSolutions-L1',
    reason: 'This stack pins nodejs22.x on purpose, to check the runtime prop.',
  });
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  let synthError: unknown;
  try {
    app.synth();
  } catch (error) {
    synthError = error;
  }
  const kinesis = Template.fromStack(kinesisStack);
  const table = Template.fromStack(tableStack);

  it('passes the AWS Solutions checks of cdk-nag', () => {
    expect(synthError === undefined ? '' : String(synthError)).toBe('');
  });

  it('maps the stream with partial batch responses, bounded retries, no bisecting and an SQS on-failure destination', () => {
    kinesis.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      EventSourceArn: { 'Fn::GetAtt': [Match.stringLikeRegexp('^Orders'), 'Arn'] },
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      BisectBatchOnFunctionError: false,
      MaximumRetryAttempts: 10,
      MaximumRecordAgeInSeconds: Duration.days(1).toSeconds(),
      ParallelizationFactor: 1,
      BatchSize: 100,
      StartingPosition: 'TRIM_HORIZON',
      DestinationConfig: {
        OnFailure: { Destination: { 'Fn::GetAtt': [Match.stringLikeRegexp('FailureQueue'), 'Arn'] } },
      },
    });
  });

  it("maps a table's stream with the given parallelization factor, retries, batch size and starting position", () => {
    table.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      EventSourceArn: { 'Fn::GetAtt': [Match.stringLikeRegexp('^Payments'), 'StreamArn'] },
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      BisectBatchOnFunctionError: false,
      ParallelizationFactor: 4,
      MaximumRetryAttempts: 3,
      BatchSize: 25,
      StartingPosition: 'LATEST',
    });
  });

  it('runs nodejs24.x by default, the given runtime otherwise, with the consumer name in the environment', () => {
    kinesis.hasResourceProperties('AWS::Lambda::Function', {
      Runtime: 'nodejs24.x',
      Environment: {
        Variables: Match.objectLike({
          IDEMKIT_CONSUMER: 'OrderStream',
          IDEMKIT_TABLE_NAME: { Ref: Match.stringLikeRegexp('^JournalTable') },
        }),
      },
    });
    table.hasResourceProperties('AWS::Lambda::Function', {
      Runtime: 'nodejs22.x',
      Environment: { Variables: Match.objectLike({ IDEMKIT_CONSUMER: 'payments-read-model' }) },
    });
  });

  it('alarms on iterator age and as soon as the on-failure destination holds a message', () => {
    kinesis.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: 'AWS/Lambda',
      MetricName: 'IteratorAge',
      Statistic: 'Maximum',
      Threshold: Duration.minutes(5).toMilliseconds(),
      ComparisonOperator: 'GreaterThanThreshold',
    });
    table.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: 'IteratorAge',
      Threshold: Duration.minutes(1).toMilliseconds(),
    });
    kinesis.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: 'AWS/SQS',
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Dimensions: [
        { Name: 'QueueName', Value: { 'Fn::GetAtt': [Match.stringLikeRegexp('FailureQueue'), 'QueueName'] } },
      ],
      Threshold: 0,
      EvaluationPeriods: 1,
    });
    expect(Object.keys(kinesis.findResources('AWS::CloudWatch::Alarm'))).toEqual([
      expect.stringMatching(/^OrderStreamIteratorAgeAlarm/),
      expect.stringMatching(/^OrderStreamFailureAlarm/),
    ]);
  });

  it('reads only its own stream and sends only to its own failure queue', () => {
    const statements = policyStatements(kinesis).map(({ statement }) => statement);
    const kinesisActions = statements.filter((s) => actionsOf(s).some((a) => a.startsWith('kinesis:')));
    expect(kinesisActions.length).toBeGreaterThan(0);
    for (const statement of kinesisActions) {
      expect(resourcesOf(statement)).not.toContain('*');
      expect(actionsOf(statement).filter((a) => /kinesis:(Put|Delete|Create|Update|\*)/.test(a))).toEqual([]);
    }
    const sqs = statements.filter((s) => actionsOf(s).some((a) => a.startsWith('sqs:')));
    expect(sqs.flatMap(actionsOf)).toEqual(expect.arrayContaining(['sqs:SendMessage']));
    for (const statement of sqs) expect(resourcesOf(statement)).not.toContain('*');
    for (const statement of sqs) expect(actionsOf(statement)).not.toContain('sqs:ReceiveMessage');
  });

  it("reads the table's stream, never writes the table", () => {
    const statements = policyStatements(table).map(({ statement }) => statement);
    const streamRead = statements.filter((s) => actionsOf(s).includes('dynamodb:GetRecords'));
    expect(streamRead).toHaveLength(1);
    expect(resourcesOf(streamRead[0])).toEqual([{ 'Fn::GetAtt': [expect.stringMatching(/^Payments/), 'StreamArn'] }]);
    const tableWrites = statements.filter((s) =>
      actionsOf(s).some((a) => /dynamodb:(PutItem|UpdateItem|DeleteItem)/.test(a)),
    );
    for (const statement of tableWrites)
      expect(JSON.stringify(resourcesOf(statement))).not.toMatch(/"Payments[0-9A-F]+"/);
  });

  it('refuses both sources, none, or a table without a stream', () => {
    const stack = new Stack(testApp(), 'Bad');
    const journal = new IdempotencyJournalTable(stack, 'Journal');
    const plain = new Table(stack, 'Plain', { partitionKey: { name: 'pk', type: AttributeType.STRING } });
    expect(() => new GuardedStreamConsumer(stack, 'None', { journal, entry: CONSUMER_ENTRY })).toThrow('exactly one');
    expect(
      () => new GuardedStreamConsumer(stack, 'Both', { journal, entry: CONSUMER_ENTRY, table: payments, stream }),
    ).toThrow('exactly one');
    expect(
      () => new GuardedStreamConsumer(stack, 'NoStream', { journal, entry: CONSUMER_ENTRY, table: plain }),
    ).toThrow('has no stream');
  });

  it('exposes the runtime metrics of its consumer', () => {
    const expression = kinesisConsumer.metricDuplicateSuppressed().toMetricConfig().mathExpression!.expression;
    expect(expression).toBe(
      `SELECT SUM(${MetricName.duplicateSuppressed}) FROM "Idempotency" WHERE ${MetricDimension.consumer} = 'OrderStream'`,
    );
  });
});

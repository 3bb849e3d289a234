import { Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { EventBus } from 'aws-cdk-lib/aws-events';
import { IdempotencyJournalTable, OutboxDispatcher, secureQueue } from '../../lib/index.js';
import { PARTITION_KEY, RecordPrefix } from '../../src/journal/schema.js';
import { actionsOf, DISPATCHER_ENTRY, policyStatements, testApp, testStack } from './test-app.js';

describe('OutboxDispatcher', () => {
  const app = testApp();
  const toQueue = new Stack(app, 'ToQueue');
  new OutboxDispatcher(toQueue, 'Outbox', {
    journal: new IdempotencyJournalTable(toQueue, 'Journal'),
    entry: DISPATCHER_ENTRY,
    destinationQueue: secureQueue(toQueue, 'Destination'),
  });
  const toBus = new Stack(app, 'ToBus');
  new OutboxDispatcher(toBus, 'Outbox', {
    journal: new IdempotencyJournalTable(toBus, 'Journal'),
    entry: DISPATCHER_ENTRY,
    eventBus: new EventBus(toBus, 'Bus'),
    retryAttempts: 3,
    batchSize: 50,
  });
  const template = Template.fromStack(toQueue);
  const busTemplate = Template.fromStack(toBus);

  it('reads the journal stream filtered to outbox inserts and to completions carrying events (multi-Region)', () => {
    const mapping = Object.values(template.findResources('AWS::Lambda::EventSourceMapping'))[0].Properties;
    expect(mapping.EventSourceArn).toEqual({ 'Fn::GetAtt': [expect.stringMatching(/^JournalTable/), 'StreamArn'] });
    expect(mapping.FilterCriteria.Filters).toHaveLength(2);
    expect(JSON.parse(mapping.FilterCriteria.Filters[0].Pattern)).toEqual({
      eventName: ['INSERT'],
      dynamodb: { Keys: { [PARTITION_KEY]: { S: [{ prefix: RecordPrefix.outbox }] } } },
    });
    expect(JSON.parse(mapping.FilterCriteria.Filters[1].Pattern)).toEqual({
      eventName: ['INSERT', 'MODIFY'],
      dynamodb: { NewImage: { status: { S: ['COMPLETED'] }, outboxEvents: { S: [{ exists: true }] } } },
    });
  });

  it('reports partial failures, bisects, bounds retries and keeps failures in a queue', () => {
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      StartingPosition: 'TRIM_HORIZON',
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      BisectBatchOnFunctionError: true,
      MaximumRetryAttempts: 10,
      MaximumRecordAgeInSeconds: 86400,
      BatchSize: 25,
      DestinationConfig: {
        OnFailure: { Destination: { 'Fn::GetAtt': [Match.stringLikeRegexp('FailureQueue'), 'Arn'] } },
      },
    });
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Dimensions: [
        { Name: 'QueueName', Value: { 'Fn::GetAtt': [Match.stringLikeRegexp('FailureQueue'), 'QueueName'] } },
      ],
      Threshold: 0,
    });
  });

  it('sends to the destination queue named in IDEMKIT_OUTBOX_QUEUE_URL', () => {
    template.hasResourceProperties('AWS::Lambda::Function', {
      Environment: {
        Variables: Match.objectLike({ IDEMKIT_OUTBOX_QUEUE_URL: { Ref: Match.stringLikeRegexp('^Destination') } }),
      },
    });
    const sends = policyStatements(template).filter(({ statement }) =>
      actionsOf(statement).includes('sqs:SendMessage'),
    );
    expect(sends.map(({ statement }) => statement.Resource)).toEqual(
      expect.arrayContaining([{ 'Fn::GetAtt': [expect.stringMatching(/^Destination/), 'Arn'] }]),
    );
  });

  it('reads no journal items, and writes back only outbox keys to start their TTL', () => {
    const statements = policyStatements(template).map(({ statement }) => statement);
    const itemActions = statements
      .flatMap((statement) => actionsOf(statement))
      .filter((action) => /^dynamodb:(Get|Put|Update|Delete)Item$/.test(action));
    expect(itemActions).toEqual([]);
    template.hasResourceProperties('AWS::IAM::Policy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Action: 'dynamodb:BatchWriteItem',
            Resource: { 'Fn::GetAtt': [Match.stringLikeRegexp('^Journal'), 'Arn'] },
            Condition: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [`${RecordPrefix.outbox}*`] } },
          }),
        ]),
      },
    });
  });

  it('puts events on the bus named in IDEMKIT_OUTBOX_EVENT_BUS_NAME', () => {
    busTemplate.hasResourceProperties('AWS::Lambda::Function', {
      Environment: {
        Variables: Match.objectLike({ IDEMKIT_OUTBOX_EVENT_BUS_NAME: { Ref: Match.stringLikeRegexp('^Bus') } }),
      },
    });
    busTemplate.hasResourceProperties('AWS::IAM::Policy', {
      PolicyDocument: { Statement: Match.arrayWith([Match.objectLike({ Action: 'events:PutEvents' })]) },
    });
    busTemplate.hasResourceProperties('AWS::Lambda::EventSourceMapping', { MaximumRetryAttempts: 3, BatchSize: 50 });
  });

  it.each([
    ['neither', {}],
    ['both', { both: true }],
  ])('refuses %s destination', (_label, variant) => {
    const stack = testStack();
    const journal = new IdempotencyJournalTable(stack, 'Journal');
    const extra =
      'both' in variant ? { destinationQueue: secureQueue(stack, 'Q'), eventBus: new EventBus(stack, 'B') } : {};
    expect(() => new OutboxDispatcher(stack, 'Outbox', { journal, entry: DISPATCHER_ENTRY, ...extra })).toThrow(
      /exactly one/,
    );
  });

  it('reads the stream of a journal imported with its stream ARN', () => {
    const stack = new Stack(testApp(), 'Imported');
    const tableStreamArn = 'arn:aws:dynamodb:eu-west-1:111111111111:table/journal/stream/2026-01-01T00:00:00.000';
    const journal = IdempotencyJournalTable.fromTableAttributes(stack, 'Journal', {
      tableName: 'journal',
      tableStreamArn,
    });
    new OutboxDispatcher(stack, 'Outbox', {
      journal,
      entry: DISPATCHER_ENTRY,
      destinationQueue: secureQueue(stack, 'Destination'),
    });

    Template.fromStack(stack).hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      EventSourceArn: tableStreamArn,
    });
  });

  it('refuses a journal imported without its stream, saying how to import it', () => {
    const stack = new Stack(testApp(), 'NoStream');
    const journal = IdempotencyJournalTable.fromTableName(stack, 'Journal', 'journal');

    expect(
      () =>
        new OutboxDispatcher(stack, 'Outbox', {
          journal,
          entry: DISPATCHER_ENTRY,
          destinationQueue: secureQueue(stack, 'Destination'),
        }),
    ).toThrow(/no stream; import it with IdempotencyJournalTable.fromTableAttributes/);
  });
});

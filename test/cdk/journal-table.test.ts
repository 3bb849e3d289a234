import { RemovalPolicy, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import { IdempotencyJournalTable, JOURNAL_ACTIONS, OPERATOR_ACTIONS } from '../../lib/index.js';
import { PARTITION_KEY, TTL_ATTRIBUTE } from '../../src/journal/schema.js';
import { actionsOf, policyStatements, testApp } from './test-app.js';

describe('IdempotencyJournalTable', () => {
  const app = testApp();
  const defaults = new Stack(app, 'Defaults');
  const defaultJournal = new IdempotencyJournalTable(defaults, 'Journal');
  const reader = new Role(defaults, 'Grantee', { assumedBy: new ServicePrincipal('lambda.amazonaws.com') });
  defaultJournal.grantJournalAccess(reader);

  const options = new Stack(app, 'Options');
  const key = new Key(options, 'Key', { enableKeyRotation: true });
  const customJournal = new IdempotencyJournalTable(options, 'Journal', {
    tableName: 'journal',
    encryptionKey: key,
    pointInTimeRecovery: false,
    removalPolicy: RemovalPolicy.DESTROY,
    deletionProtection: false,
  });
  customJournal.grantJournalAccess(
    new Role(options, 'Grantee', { assumedBy: new ServicePrincipal('lambda.amazonaws.com') }),
  );

  const template = Template.fromStack(defaults);
  const optionsTemplate = Template.fromStack(options);

  it('keys the table on a string pk with no sort key', () => {
    template.hasResourceProperties('AWS::DynamoDB::Table', {
      KeySchema: [{ AttributeName: PARTITION_KEY, KeyType: 'HASH' }],
      AttributeDefinitions: [{ AttributeName: PARTITION_KEY, AttributeType: 'S' }],
    });
  });

  it('is on-demand with TTL on expiresAt, PITR and a NEW_IMAGE stream', () => {
    template.hasResourceProperties('AWS::DynamoDB::Table', {
      BillingMode: 'PAY_PER_REQUEST',
      TimeToLiveSpecification: { AttributeName: TTL_ATTRIBUTE, Enabled: true },
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
      StreamSpecification: { StreamViewType: 'NEW_IMAGE' },
    });
  });

  it('encrypts with an AWS owned key by default', () => {
    // SSEEnabled false is how CloudFormation spells "AWS owned key".
    template.hasResourceProperties('AWS::DynamoDB::Table', { SSESpecification: { SSEEnabled: false } });
  });

  it('is retained when it leaves the stack', () => {
    template.hasResource('AWS::DynamoDB::Table', { DeletionPolicy: 'Retain', UpdateReplacePolicy: 'Retain' });
  });

  it('keeps deletion protection on by default', () => {
    template.hasResourceProperties('AWS::DynamoDB::Table', { DeletionProtectionEnabled: true });
  });

  it('grants exactly the journal actions on the table ARN only', () => {
    const dynamo = policyStatements(template).filter(({ statement }) =>
      actionsOf(statement).some((a) => a.startsWith('dynamodb:')),
    );
    expect(dynamo).toHaveLength(1);
    expect(actionsOf(dynamo[0].statement).sort()).toEqual([...JOURNAL_ACTIONS].sort());
    expect(dynamo[0].statement.Resource).toEqual({ 'Fn::GetAtt': [expect.stringMatching(/^JournalTable/), 'Arn'] });
  });

  it('grants no table-level admin, scan or query action', () => {
    expect(JOURNAL_ACTIONS).not.toEqual(expect.arrayContaining(['dynamodb:DescribeTable']));
    expect(JOURNAL_ACTIONS.filter((action) => /Scan|Query|\*/.test(action))).toEqual([]);
  });

  it('encrypts with the customer-managed key when one is given', () => {
    optionsTemplate.hasResourceProperties('AWS::DynamoDB::Table', {
      TableName: 'journal',
      SSESpecification: {
        SSEEnabled: true,
        SSEType: 'KMS',
        KMSMasterKeyId: { 'Fn::GetAtt': [Match.stringLikeRegexp('^Key'), 'Arn'] },
      },
    });
  });

  it('grants encrypt and decrypt on the customer-managed key', () => {
    const kms = policyStatements(optionsTemplate).filter(({ statement }) =>
      actionsOf(statement).includes('kms:Decrypt'),
    );
    expect(kms).toHaveLength(1);
    expect(actionsOf(kms[0].statement)).toEqual(expect.arrayContaining(['kms:Encrypt', 'kms:Decrypt']));
  });

  it('honours the PITR, removal policy and deletion protection options', () => {
    optionsTemplate.hasResource('AWS::DynamoDB::Table', {
      DeletionPolicy: 'Delete',
      Properties: Match.objectLike({
        PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: false },
        DeletionProtectionEnabled: false,
      }),
    });
  });

  it('exposes table metrics in the AWS/DynamoDB namespace', () => {
    const metric = defaultJournal.metricTransactionConflicts().toMetricConfig().metricStat!;
    expect(metric).toMatchObject({ namespace: 'AWS/DynamoDB', metricName: 'TransactionConflict', statistic: 'Sum' });
    expect(defaultJournal.metricThrottledRequests()).toBeDefined();
    expect(defaultJournal.metricSystemErrors()).toBeDefined();
    expect(defaultJournal.metricConditionalCheckFailedRequests().toMetricConfig().metricStat!.metricName).toBe(
      'ConditionalCheckFailedRequests',
    );
  });
});

describe('IdempotencyJournalTable.fromTableName / fromTableAttributes', () => {
  const stack = new Stack(testApp(), 'Imported', { env: { account: '111111111111', region: 'eu-west-1' } });
  const key = new Key(stack, 'Key', { enableKeyRotation: true });
  const byName = IdempotencyJournalTable.fromTableName(stack, 'ByName', 'existing-journal');
  const streamArn = 'arn:aws:dynamodb:eu-west-1:111111111111:table/keyed-journal/stream/2026-01-01T00:00:00.000';
  const byAttributes = IdempotencyJournalTable.fromTableAttributes(stack, 'ByAttributes', {
    tableName: 'keyed-journal',
    tableStreamArn: streamArn,
    encryptionKey: key,
  });
  const runtime = new Role(stack, 'Runtime', { assumedBy: new ServicePrincipal('lambda.amazonaws.com') });
  const operator = new Role(stack, 'Operator', { assumedBy: new ServicePrincipal('lambda.amazonaws.com') });
  byName.grantJournalAccess(runtime);
  byAttributes.grantOperatorAccess(operator);
  const template = Template.fromStack(stack);
  const tableArn = (name: string) => ({
    'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, `:dynamodb:eu-west-1:111111111111:table/${name}`]],
  });

  it('creates no table', () => {
    template.resourceCountIs('AWS::DynamoDB::Table', 0);
  });

  it('grants the journal actions on the imported table ARN only', () => {
    const dynamo = policyStatements(template).filter(
      ({ roles, statement }) =>
        JSON.stringify(roles).includes('Runtime') &&
        actionsOf(statement).some((action) => action.startsWith('dynamodb:')),
    );
    expect(dynamo).toHaveLength(1);
    expect(actionsOf(dynamo[0].statement).sort()).toEqual([...JOURNAL_ACTIONS].sort());
    expect(dynamo[0].statement.Resource).toEqual(tableArn('existing-journal'));
  });

  it('grants the operator CLI exactly its actions, and the imported key', () => {
    const statements = policyStatements(template).filter(({ roles }) => JSON.stringify(roles).includes('Operator'));
    const dynamo = statements.filter(({ statement }) =>
      actionsOf(statement).some((action) => action.startsWith('dynamodb:')),
    );
    expect(dynamo).toHaveLength(1);
    expect(actionsOf(dynamo[0].statement).sort()).toEqual([...OPERATOR_ACTIONS].sort());
    expect(dynamo[0].statement.Resource).toEqual(tableArn('keyed-journal'));
    expect(statements.some(({ statement }) => actionsOf(statement).includes('kms:Decrypt'))).toBe(true);
  });

  it('knows the stream only when it was given', () => {
    expect(byName.tableStreamArn).toBeUndefined();
    expect(byAttributes.tableStreamArn).toBe(streamArn);
  });

  it('names the imported table', () => {
    expect(byName.tableName).toBe('existing-journal');
  });
});

describe('OPERATOR_ACTIONS', () => {
  it('covers what inspect, stuck and resolve call, and nothing that creates or drops tables', () => {
    expect(OPERATOR_ACTIONS).toEqual(
      expect.arrayContaining([
        'dynamodb:DescribeTable',
        'dynamodb:Scan',
        'dynamodb:GetItem',
        'dynamodb:UpdateItem',
        'dynamodb:DeleteItem',
      ]),
    );
    expect(OPERATOR_ACTIONS.filter((action) => /Create|Delete(Table|Backup)|\*/.test(action))).toEqual([]);
  });
});

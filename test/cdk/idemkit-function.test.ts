import { Duration, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { AttributeType, type CfnTable, Table, TableEncryption } from 'aws-cdk-lib/aws-dynamodb';
import { Key } from 'aws-cdk-lib/aws-kms';
import { Architecture, Runtime } from 'aws-cdk-lib/aws-lambda';
import { IdemkitFunction, IdempotencyJournalTable } from '../../lib/index.js';
import { actionsOf, CONSUMER_ENTRY, policyStatements, testApp, testStack } from './test-app.js';

describe('IdemkitFunction', () => {
  const app = testApp();
  const defaults = new Stack(app, 'Defaults');
  new IdemkitFunction(defaults, 'Fn', { entry: CONSUMER_ENTRY });
  const options = new Stack(app, 'Options');
  new IdemkitFunction(options, 'Fn', {
    entry: CONSUMER_ENTRY,
    journal: new IdempotencyJournalTable(options, 'Journal'),
    serviceName: 'checkout',
    metricsNamespace: 'Shop',
    environment: { FEATURE: 'on' },
    timeout: Duration.seconds(25),
    memorySize: 1024,
    runtime: Runtime.NODEJS_22_X,
    architecture: Architecture.X86_64,
    sourceMaps: true,
    operationName: 'POST /checkout',
  });
  const template = Template.fromStack(defaults);
  const optionsTemplate = Template.fromStack(options);

  it('defaults to a traced arm64 nodejs24.x function with JSON logs in its own log group', () => {
    template.hasResourceProperties('AWS::Lambda::Function', {
      Runtime: 'nodejs24.x',
      Architectures: ['arm64'],
      MemorySize: 512,
      Timeout: 10,
      Handler: 'index.handler',
      TracingConfig: { Mode: 'Active' },
      LoggingConfig: {
        LogFormat: 'JSON',
        ApplicationLogLevel: 'INFO',
        SystemLogLevel: 'WARN',
        LogGroup: { Ref: Match.stringLikeRegexp('^FnLogGroup') },
      },
      Environment: {
        // No --enable-source-maps: it costs a cold start more than it gives (bench/source-maps.ts).
        Variables: { POWERTOOLS_SERVICE_NAME: 'idemkit', POWERTOOLS_METRICS_NAMESPACE: 'Idempotency' },
      },
    });
    template.hasResourceProperties('AWS::Logs::LogGroup', { RetentionInDays: 30 });
  });

  it('uses a role without AWS managed policies that may write only its own logs', () => {
    template.hasResourceProperties('AWS::IAM::Role', { ManagedPolicyArns: Match.absent() });
    const logs = policyStatements(template).filter(({ statement }) =>
      actionsOf(statement).some((a) => a.startsWith('logs:')),
    );
    expect(logs.map(({ statement }) => statement.Resource)).toEqual([
      { 'Fn::GetAtt': [expect.stringMatching(/^FnLogGroup/), 'Arn'] },
    ]);
  });

  it('sets IDEMKIT_OPERATION to the operationName, and only when one is given', () => {
    optionsTemplate.hasResourceProperties('AWS::Lambda::Function', {
      Environment: { Variables: Match.objectLike({ IDEMKIT_OPERATION: 'POST /checkout' }) },
    });
    template.hasResourceProperties('AWS::Lambda::Function', {
      Environment: { Variables: Match.objectLike({ IDEMKIT_OPERATION: Match.absent() }) },
    });
  });

  it('wires the journal and honours every option', () => {
    optionsTemplate.hasResourceProperties('AWS::Lambda::Function', {
      Runtime: 'nodejs22.x',
      Architectures: ['x86_64'],
      MemorySize: 1024,
      Timeout: 25,
      Environment: {
        Variables: Match.objectLike({
          IDEMKIT_TABLE_NAME: { Ref: Match.stringLikeRegexp('^JournalTable') },
          POWERTOOLS_SERVICE_NAME: 'checkout',
          POWERTOOLS_METRICS_NAMESPACE: 'Shop',
          FEATURE: 'on',
          NODE_OPTIONS: '--enable-source-maps',
        }),
      },
    });
    const dynamo = policyStatements(optionsTemplate).filter(({ statement }) =>
      actionsOf(statement).includes('dynamodb:PutItem'),
    );
    expect(dynamo).toHaveLength(1);
  });

  describe('with the Powertools table of a migration', () => {
    const stack = testStack('Migration');
    const powertoolsTable = new Table(stack, 'PowertoolsTable', {
      partitionKey: { name: 'id', type: AttributeType.STRING },
    });
    new IdemkitFunction(stack, 'Fn', {
      entry: CONSUMER_ENTRY,
      journal: new IdempotencyJournalTable(stack, 'Journal'),
      powertoolsTable,
    });
    const migration = Template.fromStack(stack);
    const onPowertoolsTable = () =>
      policyStatements(migration).filter(({ statement }) =>
        JSON.stringify(statement.Resource).includes(stack.getLogicalId(powertoolsTable.node.defaultChild as CfnTable)),
      );

    it('grants exactly dynamodb:GetItem on it', () => {
      const statements = onPowertoolsTable();
      expect(statements).toHaveLength(1);
      expect(statements[0].statement).toEqual({
        Action: 'dynamodb:GetItem',
        Effect: 'Allow',
        Resource: { 'Fn::GetAtt': [stack.getLogicalId(powertoolsTable.node.defaultChild as CfnTable), 'Arn'] },
      });
    });

    it('grants it to the function role only', () => {
      const [{ roles }] = onPowertoolsTable();
      expect(roles).toEqual([{ Ref: expect.stringMatching(/^FnRole/) }]);
    });

    it('grants decryption of a customer-managed key, and no other key action', () => {
      const encrypted = testStack('MigrationEncrypted');
      const key = new Key(encrypted, 'Key');
      const table = new Table(encrypted, 'PowertoolsTable', {
        partitionKey: { name: 'id', type: AttributeType.STRING },
        encryption: TableEncryption.CUSTOMER_MANAGED,
        encryptionKey: key,
      });
      new IdemkitFunction(encrypted, 'Fn', { entry: CONSUMER_ENTRY, powertoolsTable: table });
      const keyStatements = policyStatements(Template.fromStack(encrypted)).filter(({ statement }) =>
        actionsOf(statement).some((action) => action.startsWith('kms:')),
      );
      expect(keyStatements.map(({ statement }) => actionsOf(statement))).toEqual([['kms:Decrypt']]);
    });
  });
});

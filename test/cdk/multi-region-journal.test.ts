import { Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { Key } from 'aws-cdk-lib/aws-kms';
import { IdempotencyJournalTable, JournalSweeper } from '../../lib/index.js';
import { PARTITION_KEY } from '../../src/journal/schema.js';
import { actionsOf, DISPATCHER_ENTRY, policyStatements, testApp } from './test-app.js';

const inRegion = (region: string | undefined, id = 'Journal') =>
  new Stack(testApp(), id, region ? { env: { account: '111111111111', region } } : {});

describe('IdempotencyJournalTable with multiRegion (MRSC)', () => {
  const stack = inRegion('us-east-1');
  const journal = new IdempotencyJournalTable(stack, 'Journal', {
    tableName: 'payments-journal',
    multiRegion: { replicaRegions: ['us-east-2', 'us-west-2'] },
  });
  new JournalSweeper(stack, 'Sweeper', { journal, entry: DISPATCHER_ENTRY });
  const template = Template.fromStack(stack);

  it('builds one strongly consistent global table over three Regions, keyed on pk, with a NEW_IMAGE stream', () => {
    template.resourceCountIs('AWS::DynamoDB::GlobalTable', 1);
    template.resourceCountIs('AWS::DynamoDB::Table', 0);
    template.hasResourceProperties('AWS::DynamoDB::GlobalTable', {
      TableName: 'payments-journal',
      MultiRegionConsistency: 'STRONG',
      KeySchema: [{ AttributeName: PARTITION_KEY, KeyType: 'HASH' }],
      BillingMode: 'PAY_PER_REQUEST',
      StreamSpecification: { StreamViewType: 'NEW_IMAGE' },
    });
    const [table] = Object.values(template.findResources('AWS::DynamoDB::GlobalTable'));
    const replicas = table?.Properties.Replicas as Array<{ Region: string; DeletionProtectionEnabled?: boolean }>;
    expect(replicas.map((replica) => replica.Region).sort()).toEqual(['us-east-1', 'us-east-2', 'us-west-2']);
    expect(replicas.every((replica) => replica.DeletionProtectionEnabled === true)).toBe(true);
    expect(journal.regions).toEqual(['us-east-1', 'us-east-2', 'us-west-2']);
  });

  it('has no TTL: MRSC tables refuse it, the sweeper deletes instead', () => {
    const [table] = Object.values(template.findResources('AWS::DynamoDB::GlobalTable'));
    expect(table?.Properties.TimeToLiveSpecification).toBeUndefined();
  });

  it('takes two replicas and a witness', () => {
    const witnessed = inRegion('eu-west-1');
    new IdempotencyJournalTable(witnessed, 'Journal', {
      multiRegion: { replicaRegions: ['eu-west-2'], witnessRegion: 'eu-central-1' },
    });
    Template.fromStack(witnessed).hasResourceProperties('AWS::DynamoDB::GlobalTable', {
      MultiRegionConsistency: 'STRONG',
      GlobalTableWitnesses: [{ Region: 'eu-central-1' }],
    });
  });

  it.each([
    ['a Region-agnostic stack', undefined, { replicaRegions: ['us-east-2', 'us-west-2'] }, /explicit env.region/],
    ['two Regions without a witness', 'us-east-1', { replicaRegions: ['us-east-2'] }, /give 2 replicaRegions/],
    ['four Regions', 'eu-west-1', { replicaRegions: ['eu-west-2', 'eu-west-3', 'eu-central-1'] }, /give 2/],
    [
      'a witness with two replicas besides the stack',
      'us-east-1',
      { replicaRegions: ['us-east-2', 'us-west-2'], witnessRegion: 'us-west-2' },
      /must all differ/,
    ],
    ['Regions of two sets', 'us-east-1', { replicaRegions: ['us-east-2', 'eu-west-1'] }, /eu-west-1 not in the US/],
    ['a Region in no set', 'sa-east-1', { replicaRegions: ['us-east-1', 'us-east-2'] }, /in no MRSC Region set/],
    ['the stack Region among the replicas', 'us-east-1', { replicaRegions: ['us-east-1', 'us-east-2'] }, /differ/],
  ])('refuses %s at synth, saying what to change', (_label, region, multiRegion, message) => {
    expect(() => new IdempotencyJournalTable(inRegion(region), 'Journal', { multiRegion })).toThrow(message);
  });

  it('refuses a customer-managed key, which is regional', () => {
    const keyed = inRegion('us-east-1');
    const encryptionKey = new Key(keyed, 'Key', { enableKeyRotation: true });
    expect(
      () =>
        new IdempotencyJournalTable(keyed, 'Journal', {
          encryptionKey,
          multiRegion: { replicaRegions: ['us-east-2', 'us-west-2'] },
        }),
    ).toThrow(/customer-managed key/);
  });

  it('runs the sweeper every 15 minutes on nodejs24.x, one run at a time, with Scan, GetItem and DeleteItem only', () => {
    template.hasResourceProperties('AWS::Events::Rule', { ScheduleExpression: 'rate(15 minutes)' });
    template.hasResourceProperties('AWS::Lambda::Function', {
      Runtime: 'nodejs24.x',
      ReservedConcurrentExecutions: 1,
      Environment: { Variables: Match.objectLike({ IDEMKIT_TABLE_NAME: Match.anyValue() }) },
    });
    const dynamodb = policyStatements(template)
      .flatMap(({ statement }) => actionsOf(statement))
      .filter((action) => action.startsWith('dynamodb:'));
    expect(dynamodb.sort()).toEqual(['dynamodb:DeleteItem', 'dynamodb:GetItem', 'dynamodb:Scan']);
  });
});

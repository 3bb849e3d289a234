import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import ts from 'typescript';
import { testApp } from './test-app.js';

/*
 * The CDK recipe of docs/valkey.md, synthesized as the guide prints it: its TypeScript sample is
 * compiled (the README samples test type-checks it too) and run, and the stack it builds is checked.
 */
const GUIDE = join(__dirname, '..', '..', 'docs', 'valkey.md');

/** The guide's sample that defines `ValkeyJournalStack`, compiled to CommonJS and loaded. */
function recipe(): { ValkeyJournalStack: new (scope: unknown, id: string, props: { code: lambda.Code }) => Stack } {
  const blocks = [...readFileSync(GUIDE, 'utf8').matchAll(/```ts\n([\s\S]*?)```/g)].map(([, code]) => code!);
  const source = blocks.find((code) => code.includes('class ValkeyJournalStack'));
  if (!source) throw new Error('docs/valkey.md has no ValkeyJournalStack sample');
  const { outputText } = ts.transpileModule(source, {
    compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, esModuleInterop: true },
  });
  const exports: Record<string, unknown> = {};
  new Function('exports', 'require', outputText)(exports, require);
  return exports as ReturnType<typeof recipe>;
}

describe('the Valkey journal CDK recipe (docs/valkey.md)', () => {
  const { ValkeyJournalStack } = recipe();
  const stack = new ValkeyJournalStack(testApp(), 'ValkeyJournal', {
    code: lambda.Code.fromInline('exports.handler = async () => ({ statusCode: 201 });'),
  });
  const template = Template.fromStack(stack);

  it('builds a Valkey serverless cache in the VPC, behind its own security group', () => {
    template.hasResourceProperties('AWS::ElastiCache::ServerlessCache', {
      Engine: 'valkey',
      SecurityGroupIds: [{ 'Fn::GetAtt': [Match.stringLikeRegexp('^CacheSecurityGroup'), 'GroupId'] }],
    });
    const [cache] = Object.values(template.findResources('AWS::ElastiCache::ServerlessCache'));
    expect(cache!.Properties.SubnetIds).toHaveLength(2);
  });

  it("admits the function's security group, and only it, on 6379", () => {
    const ingress = template.findResources('AWS::EC2::SecurityGroupIngress');
    expect(Object.values(ingress).map(({ Properties }) => [Properties.FromPort, Properties.ToPort])).toEqual([
      [6379, 6379],
    ]);
    const [rule] = Object.values(ingress);
    const functionGroup = Object.entries(template.findResources('AWS::EC2::SecurityGroup')).find(([id]) =>
      id.startsWith('FunctionSecurityGroup'),
    )?.[0];
    expect(rule!.Properties.SourceSecurityGroupId).toEqual({ 'Fn::GetAtt': [functionGroup, 'GroupId'] });
  });

  it('runs the function in the VPC with the endpoint in its environment', () => {
    template.hasResourceProperties('AWS::Lambda::Function', {
      VpcConfig: {
        SecurityGroupIds: [{ 'Fn::GetAtt': [Match.stringLikeRegexp('^FunctionSecurityGroup'), 'GroupId'] }],
        SubnetIds: Match.anyValue(),
      },
      Environment: {
        Variables: {
          VALKEY_HOST: { 'Fn::GetAtt': [Match.stringLikeRegexp('^Journal'), 'Endpoint.Address'] },
          VALKEY_PORT: { 'Fn::GetAtt': [Match.stringLikeRegexp('^Journal'), 'Endpoint.Port'] },
        },
      },
    });
  });
});

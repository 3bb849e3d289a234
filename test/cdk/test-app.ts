import { App, Stack } from 'aws-cdk-lib';
import type { Template } from 'aws-cdk-lib/assertions';
import { exampleHandlerEntry } from '../../lib/example/handler-entry.js';

/**
 * An app that skips asset bundling (`aws:cdk:bundling-stacks` empty) and aws-cdk-lib's built-in
 * CloudFormation validation: these tests assert the template, and `npx cdk synth` exercises the
 * real esbuild bundling and the validation, as errors (cdk.json turns its default rules on).
 * Here the validation only warns, and its 9 MB WebAssembly module goes on compiling in V8's
 * background threads after the synth: a Jest worker that ran it took over a second to exit and
 * was force-exited ("A worker process has failed to exit gracefully").
 */
export function testApp(): App {
  return new App({ context: { 'aws:cdk:bundling-stacks': [] }, builtinCloudFormationValidation: false });
}

/** A stack in a fresh {@link testApp}, in a fixed environment. */
export function testStack(id = 'Test'): Stack {
  return new Stack(testApp(), id, { env: { account: '111111111111', region: 'eu-west-1' } });
}

/** An entry file that exists, for constructs that take one. */
export const CONSUMER_ENTRY = exampleHandlerEntry('order-events-consumer');
/** The dispatcher's entry file. */
export const DISPATCHER_ENTRY = exampleHandlerEntry('outbox-dispatcher');

/** Every IAM policy statement of the template, with the logical id of its policy and the roles it is attached to. */
export function policyStatements(
  template: Template,
): Array<{ policyId: string; roles: unknown[]; statement: Record<string, unknown> }> {
  const policies = template.findResources('AWS::IAM::Policy');
  return Object.entries(policies).flatMap(([policyId, policy]) =>
    (policy.Properties.PolicyDocument.Statement as Record<string, unknown>[]).map((statement) => ({
      policyId,
      roles: policy.Properties.Roles as unknown[],
      statement,
    })),
  );
}

/** Actions of a statement as an array. */
export function actionsOf(statement: Record<string, unknown>): string[] {
  const action = statement.Action;
  return Array.isArray(action) ? (action as string[]) : [action as string];
}

/** Resources of a statement as an array. */
export function resourcesOf(statement: Record<string, unknown>): unknown[] {
  const resource = statement.Resource;
  return Array.isArray(resource) ? resource : [resource];
}

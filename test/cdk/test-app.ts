import { App, Stack } from 'aws-cdk-lib';
import type { Template } from 'aws-cdk-lib/assertions';
import { exampleHandlerEntry } from '../../lib/example/handler-entry.js';

/**
 * An app that skips asset bundling (`aws:cdk:bundling-stacks` empty) and CDK's built-in
 * CloudFormation validation: these tests assert the template, and `npx cdk synth` exercises the
 * real esbuild bundling and the validation (an error there fails synth, by `cdk.json`'s
 * `@aws-cdk/core:validateAgainstDefaultRules`). Here the validation would only warn; it starts its
 * WebAssembly rule engine anew on every synth (about a second each, most of these suites' time),
 * and its 9 MB module goes on compiling in V8's background threads after the synth, so a Jest
 * worker that ran it was force-exited. Plugins a suite adds itself (cdk-nag) still run.
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

import { Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { Runtime } from 'aws-cdk-lib/aws-lambda';
import type { Construct } from 'constructs';
import {
  DEFAULT_FUNCTION_RUNTIME,
  GuardedQueueConsumer,
  IdemkitFunction,
  IdempotencyJournalTable,
  OutboxDispatcher,
  secureQueue,
} from '../../lib/index.js';
import { CONSUMER_ENTRY, DISPATCHER_ENTRY, testApp } from './test-app.js';

/** Every construct that builds a function, built with the given `runtime` prop (or none). */
const FUNCTION_BUILDERS: Record<string, (scope: Construct, runtime?: Runtime) => void> = {
  IdemkitFunction: (scope, runtime) => new IdemkitFunction(scope, 'Fn', { entry: CONSUMER_ENTRY, runtime }),
  GuardedQueueConsumer: (scope, runtime) =>
    new GuardedQueueConsumer(scope, 'Orders', {
      journal: new IdempotencyJournalTable(scope, 'Journal'),
      entry: CONSUMER_ENTRY,
      runtime,
    }),
  OutboxDispatcher: (scope, runtime) =>
    new OutboxDispatcher(scope, 'Outbox', {
      journal: new IdempotencyJournalTable(scope, 'Journal'),
      entry: DISPATCHER_ENTRY,
      destinationQueue: secureQueue(scope, 'Destination'),
      runtime,
    }),
};

function runtimesOf(build: (scope: Construct) => void): string[] {
  const stack = new Stack(testApp(), 'Runtime');
  build(stack);
  return Object.values(Template.fromStack(stack).findResources('AWS::Lambda::Function')).map(
    (fn) => fn.Properties.Runtime as string,
  );
}

describe('the runtime of every function a construct builds', () => {
  it('defaults to nodejs24.x, one constant for every construct', () => {
    expect(DEFAULT_FUNCTION_RUNTIME.name).toBe('nodejs24.x');
  });

  it.each(Object.keys(FUNCTION_BUILDERS))('%s runs on DEFAULT_FUNCTION_RUNTIME without a runtime prop', (name) => {
    expect(runtimesOf((scope) => FUNCTION_BUILDERS[name](scope))).toEqual([DEFAULT_FUNCTION_RUNTIME.name]);
  });

  it.each(Object.keys(FUNCTION_BUILDERS))('%s runs on the runtime its prop names', (name) => {
    expect(runtimesOf((scope) => FUNCTION_BUILDERS[name](scope, Runtime.NODEJS_22_X))).toEqual(['nodejs22.x']);
  });
});

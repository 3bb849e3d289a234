import { Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import middy from '@middy/core';
import {
  GuardedQueueConsumer,
  IdemkitFunction,
  IdempotencyDashboard,
  IdempotencyJournalTable,
} from '../../lib/index.js';
import { httpIdempotency, MemoryJournal, sqsConsumer, type MetricsSink } from '../../src/index.js';
import { MetricDimension } from '../../src/telemetry/metric-names.js';
import { httpApiEvent, lambdaContext, sqsEvent } from '../../src/testing/index.js';
import { CONSUMER_ENTRY, testApp } from './test-app.js';

/** The queues guide holds the `sqsConsumer` sample and the construct it deploys under; the CDK guide that construct too. */
const QUEUES_GUIDE = readFileSync(join(__dirname, '../../docs/queues.md'), 'utf8');
const CDK_GUIDE = readFileSync(join(__dirname, '../../docs/cdk.md'), 'utf8');
/** The README's Quick start is the HTTP handler such a function runs. */
const README = readFileSync(join(__dirname, '../../README.md'), 'utf8');

/** A metrics sink that keeps the values of one dimension of every metric emitted. */
function dimensionSink(dimension: string): { metrics: MetricsSink; values: string[] } {
  const values: string[] = [];
  const metrics = {
    singleMetric: () => ({
      clearDimensions: () => undefined,
      clearDefaultDimensions: () => undefined,
      addDimension: (name: string, value: string) => void (name === dimension && values.push(value)),
      addMetric: () => undefined,
    }),
  } as never as MetricsSink;
  return { metrics, values };
}

/** Runs `act` with one environment variable set as given, then puts it back. */
async function withVariable<T>(name: string, value: string, act: () => Promise<T>): Promise<T> {
  const saved = process.env[name];
  process.env[name] = value;
  try {
    return await act();
  } finally {
    if (saved === undefined) delete process.env[name];
    else process.env[name] = saved;
  }
}

/** The values the alarms' Metrics Insights queries filter the given dimension on. */
function alarmedValues(template: Template, dimension: string): string[] {
  const pattern = new RegExp(`WHERE ${dimension} = '([^']+)'`);
  return Object.values(template.findResources('AWS::CloudWatch::Alarm')).flatMap((alarm) =>
    ((alarm.Properties.Metrics ?? []) as Array<{ Expression?: string }>)
      .map((metric) => metric.Expression?.match(pattern)?.[1])
      .filter((value): value is string => value !== undefined),
  );
}

/** The options object the queues guide's `sqsConsumer` sample passes, as written. */
function sampleConsumerOptions(): string {
  const sample = QUEUES_GUIDE.match(/export const handler = sqsConsumer\([\s\S]*?\}, (\{[^\n]*\})\);/);
  if (!sample) throw new Error('docs/queues.md has no sqsConsumer sample');
  return sample[1];
}

/** The construct id a guide's CDK sample gives its GuardedQueueConsumer. */
function sampleConstructId(guide: string, name: string): string {
  const sample = guide.match(/new GuardedQueueConsumer\(stack, '([^']+)'/);
  if (!sample) throw new Error(`${name} has no GuardedQueueConsumer sample`);
  return sample[1];
}

describe("the guides' queue samples", () => {
  const stack = new Stack(testApp(), 'Orders');
  const journal = new IdempotencyJournalTable(stack, 'Journal');
  const constructId = sampleConstructId(QUEUES_GUIDE, 'docs/queues.md');
  const consumer = new GuardedQueueConsumer(stack, constructId, { journal, entry: CONSUMER_ENTRY });
  new IdempotencyDashboard(stack, 'Dashboard', { consumers: [consumer.consumerName], journal });
  const template = Template.fromStack(stack);

  it('let the consumer take its name from the construct (no consumer option in the sample)', () => {
    expect(sampleConsumerOptions()).not.toMatch(/\bconsumer:/);
  });

  it('deploy it under the construct id the queues guide names, in both guides', () => {
    expect(QUEUES_GUIDE).toContain(`\`'${constructId}'\` in the CDK sample below`);
    expect(sampleConstructId(CDK_GUIDE, 'docs/cdk.md')).toBe(constructId);
  });

  it("emit metrics with the Consumer dimension the dashboard's alarms watch", async () => {
    const [fn] = Object.values(
      template.findResources('AWS::Lambda::Function', { Properties: { Handler: 'index.handler' } }),
    );
    const environment = fn.Properties.Environment.Variables as Record<string, string>;
    const { metrics, values: dimensions } = dimensionSink(MetricDimension.consumer);
    await withVariable('IDEMKIT_CONSUMER', environment.IDEMKIT_CONSUMER, async () => {
      // The sample's options as written; only the journal and the metrics sink are the test's.
      const handler = sqsConsumer(async () => undefined, { journal: new MemoryJournal(), metrics });
      await handler(sqsEvent([{ body: { detail: { sku: 'A', quantity: 1 } } }]), lambdaContext());
    });
    expect(dimensions.length).toBeGreaterThan(0);
    expect(new Set(dimensions)).toEqual(new Set([consumer.consumerName]));
    expect(alarmedValues(template, MetricDimension.consumer)).toContain(dimensions[0]);
  });
});

/** The operation name the CDK guide's sample gives its IdemkitFunction, and the operations its dashboard alarms on. */
function sampleOperationWiring(): { operationName: string; dashboardOperations: string[] } {
  const variable = CDK_GUIDE.match(/new IdemkitFunction\(stack, '[^']+', \{[^}]*operationName: (\w+)/)?.[1];
  const value = variable && CDK_GUIDE.match(new RegExp(`const ${variable} = '([^']+)'`))?.[1];
  const dashboard = CDK_GUIDE.match(/new IdempotencyDashboard\(stack, '[^']+', \{ operations: \[([^\]]*)\]/)?.[1];
  if (!variable || !value || dashboard === undefined) throw new Error('docs/cdk.md has no IdemkitFunction sample');
  const dashboardOperations = dashboard.split(',').map((part) => (part.trim() === variable ? value : part.trim()));
  return { operationName: value, dashboardOperations };
}

/** The options object the README's Quick start passes to httpIdempotency, as written. */
function quickStartOptions(): string {
  const sample = README.match(/\.use\(httpIdempotency\((\{[^\n]*\})\)\);/);
  if (!sample) throw new Error('README.md has no httpIdempotency sample');
  return sample[1];
}

describe("the guides' function samples", () => {
  const { operationName, dashboardOperations } = sampleOperationWiring();
  const stack = new Stack(testApp(), 'Orders');
  const journal = new IdempotencyJournalTable(stack, 'Journal');
  const fn = new IdemkitFunction(stack, 'CreateOrder', { entry: CONSUMER_ENTRY, journal, operationName });
  new IdempotencyDashboard(stack, 'Dashboard', { operations: dashboardOperations, journal });
  const template = Template.fromStack(stack);

  it('let the HTTP handler take its operation from the construct (no operation option in the Quick start)', () => {
    expect(quickStartOptions()).not.toMatch(/\boperation:/);
  });

  it("emit metrics with the Operation dimension the dashboard's alarms watch, whatever the route", async () => {
    const environment = template.findResources('AWS::Lambda::Function', {
      Properties: { Handler: 'index.handler' },
    });
    const variables = Object.values(environment)[0].Properties.Environment.Variables as Record<string, string>;
    const { metrics, values } = dimensionSink(MetricDimension.operation);
    await withVariable('IDEMKIT_OPERATION', variables.IDEMKIT_OPERATION, async () => {
      // The Quick start's options as written; only the journal and the metrics sink are the test's.
      const handler = middy(async () => ({ statusCode: 201, body: '{}' })).use(
        httpIdempotency({ journal: new MemoryJournal(), metrics }),
      );
      await handler(
        httpApiEvent({ method: 'POST', path: '/v2/orders', idempotencyKey: 'k-1', body: {} }),
        lambdaContext(),
      );
    });

    expect(values.length).toBeGreaterThan(0);
    expect(new Set(values)).toEqual(new Set([fn.operationName]));
    expect(alarmedValues(template, MetricDimension.operation)).toContain(values[0]);
  });
});

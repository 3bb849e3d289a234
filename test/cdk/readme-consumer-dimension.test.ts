import { Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { GuardedQueueConsumer, IdempotencyDashboard, IdempotencyJournalTable } from '../../lib/index.js';
import { MemoryJournal, sqsConsumer, type MetricsSink } from '../../src/index.js';
import { MetricDimension } from '../../src/telemetry/metric-names.js';
import { lambdaContext, sqsEvent } from '../../src/testing/index.js';
import { CONSUMER_ENTRY, testApp } from './test-app.js';

/** The queues guide holds the `sqsConsumer` sample, the CDK guide the construct it deploys under. */
const QUEUES_GUIDE = readFileSync(join(__dirname, '../../docs/queues.md'), 'utf8');
const CDK_GUIDE = readFileSync(join(__dirname, '../../docs/cdk.md'), 'utf8');

/** The options object the queues guide's `sqsConsumer` sample passes, as written. */
function sampleConsumerOptions(): string {
  const sample = QUEUES_GUIDE.match(/export const handler = sqsConsumer\([\s\S]*?\}, (\{[^\n]*\})\);/);
  if (!sample) throw new Error('docs/queues.md has no sqsConsumer sample');
  return sample[1];
}

/** The construct id the CDK guide's sample gives its GuardedQueueConsumer. */
function sampleConstructId(): string {
  const sample = CDK_GUIDE.match(/new GuardedQueueConsumer\(stack, '([^']+)'/);
  if (!sample) throw new Error('docs/cdk.md has no GuardedQueueConsumer sample');
  return sample[1];
}

describe("the guides' queue samples", () => {
  const stack = new Stack(testApp(), 'Orders');
  const journal = new IdempotencyJournalTable(stack, 'Journal');
  const consumer = new GuardedQueueConsumer(stack, sampleConstructId(), { journal, entry: CONSUMER_ENTRY });
  new IdempotencyDashboard(stack, 'Dashboard', { consumers: [consumer.consumerName], journal });
  const template = Template.fromStack(stack);

  /** The `Consumer` values the alarms' Metrics Insights queries filter on. */
  function alarmedConsumers(): string[] {
    const pattern = new RegExp(`WHERE ${MetricDimension.consumer} = '([^']+)'`);
    return Object.values(template.findResources('AWS::CloudWatch::Alarm')).flatMap((alarm) =>
      ((alarm.Properties.Metrics ?? []) as Array<{ Expression?: string }>)
        .map((metric) => metric.Expression?.match(pattern)?.[1])
        .filter((value): value is string => value !== undefined),
    );
  }

  it('let the consumer take its name from the construct (no consumer option in the sample)', () => {
    expect(sampleConsumerOptions()).not.toMatch(/\bconsumer:/);
  });

  it("emit metrics with the Consumer dimension the dashboard's alarms watch", async () => {
    const [fn] = Object.values(
      template.findResources('AWS::Lambda::Function', { Properties: { Handler: 'index.handler' } }),
    );
    const environment = fn.Properties.Environment.Variables as Record<string, string>;
    const dimensions: string[] = [];
    const metrics = {
      singleMetric: () => ({
        clearDimensions: () => undefined,
        clearDefaultDimensions: () => undefined,
        addDimension: (name: string, value: string) =>
          void (name === MetricDimension.consumer && dimensions.push(value)),
        addMetric: () => undefined,
      }),
    } as never as MetricsSink;
    const saved = process.env.IDEMKIT_CONSUMER;
    process.env.IDEMKIT_CONSUMER = environment.IDEMKIT_CONSUMER;
    try {
      // The sample's options as written; only the journal and the metrics sink are the test's.
      const handler = sqsConsumer(async () => undefined, { journal: new MemoryJournal(), metrics });
      await handler(sqsEvent([{ body: { detail: { sku: 'A', quantity: 1 } } }]), lambdaContext());
    } finally {
      if (saved === undefined) delete process.env.IDEMKIT_CONSUMER;
      else process.env.IDEMKIT_CONSUMER = saved;
    }
    expect(dimensions.length).toBeGreaterThan(0);
    expect(new Set(dimensions)).toEqual(new Set([consumer.consumerName]));
    expect(alarmedConsumers()).toContain(dimensions[0]);
    expect(alarmedConsumers().length).toBeGreaterThan(0);
  });
});

/**
 * `npm run demo`: the situations idemkit exists for, played on an embedded DynamoDB Local and
 * SQS emulator with the example payments service's own handlers. Each scenario prints a
 * timeline with the `idempotency_status` of every attempt; the run ends with the metrics the
 * runtime emitted and exits 0 when every scenario held, leaving no process behind.
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { MetricName } from '../../src/index.js';
import { seedStock, startLocalPaymentsStack } from '../local/payments-stack.js';
import { DemoContext } from './demo-context.js';
import { Narrator } from './narrator.js';
import { changedAmount, crashAfterRail, doubleTap, lostResponse } from './scenarios/http-scenarios.js';
import { crossRegionRetry } from './scenarios/cross-region-retry.js';
import { migratedReplay } from './scenarios/migration-scenario.js';
import { outboxTwice, queueRedelivery } from './scenarios/queue-scenarios.js';
import { retryStorm } from './scenarios/retry-storm.js';
import { stagedOnlyDoubleTap } from './scenarios/staged-only.js';
import { streamRetried } from './scenarios/stream-scenario.js';

const INITIAL_STOCK = 100;
// Under the git-ignored .local/, so a demo run never rewrites a tracked file (docs/retry-storm.svg is a copy).
const CHART_PATH = join(dirname(fileURLToPath(import.meta.url)), '../../.local/retry-storm.svg');

async function main(): Promise<number> {
  const narrator = new Narrator();
  narrator.line('idemkit demo: one business effect per intent, whatever the network does');
  process.stdout.write('Starting DynamoDB Local (in memory, 127.0.0.1) and the SQS emulator');
  const stack = await startLocalPaymentsStack({ onProgress: () => process.stdout.write('.') });
  process.stdout.write(` ready (DynamoDB Local pid ${stack.dynamodb.pid}).\n`);
  try {
    await seedStock(stack, 'sku-red-mug', INITIAL_STOCK);
    const ctx = new DemoContext(stack, narrator);
    await lostResponse(ctx);
    await doubleTap(ctx);
    await changedAmount(ctx);
    await crashAfterRail(ctx);
    await queueRedelivery(ctx, INITIAL_STOCK);
    await outboxTwice(ctx, INITIAL_STOCK);
    await stagedOnlyDoubleTap(ctx);
    retryStorm(narrator, CHART_PATH);
    await migratedReplay(ctx);
    await streamRetried(ctx);
    await crossRegionRetry(ctx);
    narrator.line();
    narrator.line('Metrics the runtime emitted (EMF, namespace Idempotency):');
    narrator.table(
      ['metric', 'count'],
      Object.values(MetricName).map((name) => [name, String(ctx.capture.metricCounts.get(name) ?? 0)]),
    );
    narrator.line();
    narrator.table(
      ['scenario', 'held'],
      narrator.verdicts.map((v) => [v.title, v.ok ? 'yes' : 'NO']),
    );
    return narrator.verdicts.every((v) => v.ok) ? 0 : 1;
  } finally {
    await stack.stop();
    narrator.line(`Stopped DynamoDB Local (pid ${stack.dynamodb.pid}) and the SQS emulator.`);
  }
}

main().then(
  (code) => process.exit(code),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);

import { ScanCommand, GetCommand } from '@aws-sdk/lib-dynamodb';
import { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import { ExampleTableKey } from '../../../src/handlers/service-config.js';
import { EventSourceMapping, queueDepth } from '../../local/sqs-queues.js';
import { StreamPoller } from '../../local/stream-poller.js';
import { sleep, type DemoContext } from '../demo-context.js';

const SKU = 'sku-red-mug';

/** Units the stored payments ordered: what the stock must have gone down by, exactly once each. */
async function unitsOrdered(ctx: DemoContext): Promise<number> {
  const out = await ctx.stack.doc.send(new ScanCommand({ TableName: ctx.stack.tables.payments }));
  return (out.Items ?? [])
    .flatMap((p) => (p.items as Array<{ sku: string; quantity: number }>) ?? [])
    .filter((i) => i.sku === SKU)
    .reduce((sum, i) => sum + i.quantity, 0);
}

async function available(ctx: DemoContext): Promise<number> {
  const out = await ctx.stack.doc.send(
    new GetCommand({ TableName: ctx.stack.tables.stock, Key: { [ExampleTableKey.stock]: SKU }, ConsistentRead: true }),
  );
  return Number(out.Item?.available ?? 0);
}

/**
 * The dispatcher relays the payments' `order.confirmed` events; the consumer reserves stock,
 * then its container dies before the messages are deleted, so the queue delivers them again.
 */
export async function queueRedelivery(ctx: DemoContext, initialStock: number): Promise<void> {
  const { narrator, capture, stack } = ctx;
  narrator.scenario(
    5,
    'A queue redelivery',
    'The stock consumer reserves stock for each confirmed order, then its container dies before it deletes the messages, so SQS delivers them again.',
  );
  await stack.outboxStream.deliver(ctx.dispatcher());
  narrator.event(
    'outbox',
    `${await queueDepth(stack.sqsClient, stack.orderEvents.url)} order.confirmed events from the payments so far are put on the order-events queue`,
  );
  const mapping = new EventSourceMapping(stack.sqsClient, stack.orderEvents, ctx.consumer());
  const first = await mapping.deliverOnce({ crashAfterInvoke: true });
  const firstLines = capture.drain();
  narrator.event(
    'consumer',
    `takes ${first.received} messages and reserves stock: ${initialStock} → ${await available(ctx)}   [idempotency_status: ${summarize(firstLines)}]`,
  );
  narrator.event('consumer', '💥 killed before deleting the messages; they reappear after the 2 s visibility timeout');
  await sleep(2_200);
  const again = await mapping.drain(10_000);
  const againLines = capture.drain();
  const expected = initialStock - (await unitsOrdered(ctx));
  const now = await available(ctx);
  narrator.event(
    'consumer',
    `gets the same ${again.reduce((n, d) => n + d.received, 0)} messages again; stock now ${now}   [idempotency_status: ${summarize(againLines)}]`,
  );
  narrator.verdict(
    'queue redelivery',
    now === expected && againLines.every((l) => l.status === 'replay'),
    `stock is ${now} (expected ${expected}): no redelivered message reserved stock a second time`,
  );
}

/** The dispatcher runs again over the same stream records (a retried stream batch). */
export async function outboxTwice(ctx: DemoContext, initialStock: number): Promise<void> {
  const { narrator, capture, stack } = ctx;
  narrator.scenario(
    6,
    'An outbox published twice',
    'A stream batch is retried after a timeout: the same events reach the queue again, under new message ids.',
  );
  const rereader = new StreamPoller({
    tableName: stack.tables.journal,
    dynamodb: stack.client,
    streams: new DynamoDBStreamsClient({
      endpoint: stack.dynamodb.endpoint,
      region: 'us-east-1',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    }),
  });
  await rereader.deliver(ctx.dispatcher());
  narrator.event(
    'outbox',
    `dispatcher replayed the stream from its start: ${await queueDepth(stack.sqsClient, stack.orderEvents.url)} messages on the queue again`,
  );
  const deliveries = await new EventSourceMapping(stack.sqsClient, stack.orderEvents, ctx.consumer()).drain(10_000);
  const lines = capture.drain();
  narrator.event(
    'consumer',
    `${deliveries.reduce((n, d) => n + d.received, 0)} messages: ${summarize(lines)} (deduplicated on the outbox eventId)`,
  );
  const expected = initialStock - (await unitsOrdered(ctx));
  const now = await available(ctx);
  narrator.verdict(
    'outbox twice',
    now === expected && lines.length > 0 && lines.every((l) => l.status === 'replay'),
    `stock is still ${now}: each event reserved stock once`,
  );
}

/** Counts attempt lines by status: `3× new, 1× replay`. */
export function summarize(lines: ReadonlyArray<{ status: string }>): string {
  const counts = new Map<string, number>();
  for (const line of lines) counts.set(line.status, (counts.get(line.status) ?? 0) + 1);
  return [...counts].map(([status, n]) => `${n}× ${status}`).join(', ') || 'nothing';
}

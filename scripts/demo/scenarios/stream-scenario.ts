import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import type { DemoContext } from '../demo-context.js';
import { summarize } from './queue-scenarios.js';

/** What the payment totals must say: every captured payment counted once (transfers are not payments). */
async function paymentsStored(ctx: DemoContext): Promise<{ count: number; amount: number }> {
  const out = await ctx.stack.doc.send(new ScanCommand({ TableName: ctx.stack.tables.payments, ConsistentRead: true }));
  const items = (out.Items ?? []).filter((item) => item.status === 'CAPTURED');
  return { count: items.length, amount: items.reduce((sum, item) => sum + Number(item.amount), 0) };
}

/** What the read model holds, summed over its items. */
async function totalsProjected(ctx: DemoContext): Promise<{ count: number; amount: number }> {
  const out = await ctx.stack.doc.send(
    new ScanCommand({ TableName: ctx.stack.tables.paymentTotals, ConsistentRead: true }),
  );
  const items = out.Items ?? [];
  return {
    count: items.reduce((sum, item) => sum + Number(item.paymentCount), 0),
    amount: items.reduce((sum, item) => sum + Number(item.capturedAmount), 0),
  };
}

/**
 * The read model consumer projects the payments table's stream into payment totals, then its
 * invocation times out before Lambda hears the answer: the same stream batch comes again.
 */
export async function streamRetried(ctx: DemoContext): Promise<void> {
  const { narrator, capture, stack } = ctx;
  narrator.scenario(
    10,
    'A stream batch retried',
    "The payments table's stream feeds a read model; the invocation times out after committing, so Lambda sends the batch again.",
  );
  const readModel = ctx.readModel();
  const event = await stack.paymentsStream.read();
  const first = await readModel(event);
  const firstLines = capture.drain();
  narrator.event(
    'read model',
    `batch of ${event.Records.length} stream records: ${summarize(firstLines)}; ${first.batchItemFailures.length} reported`,
  );
  narrator.event('read model', '💥 timed out before Lambda heard the answer; the same batch comes again');
  const again = await readModel(event);
  const againLines = capture.drain();
  stack.paymentsStream.acknowledge(event, again);
  narrator.event('read model', `redelivered batch: ${summarize(againLines)}`);
  const stored = await paymentsStored(ctx);
  const projected = await totalsProjected(ctx);
  narrator.verdict(
    'stream batch retried',
    projected.count === stored.count &&
      projected.amount === stored.amount &&
      againLines.length > 0 &&
      againLines.every((line) => line.status === 'replay'),
    `totals count ${projected.count} payments, ${projected.amount} minor units (stored: ${stored.count}, ${stored.amount}): each change projected once`,
  );
}

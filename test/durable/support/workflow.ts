import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { DurableContext } from '@aws/durable-execution-sdk-js';
import { DynamoDBJournal, idempotencyOf, makeIdempotent, type MakeIdempotentOptions } from '../../../src/index.js';
import { createJournalTable, localClient } from '../../support/dynamodb.js';

/** An order a durable workflow fulfils: charge, wait, then ship. */
export interface Order {
  readonly orderId: string;
  readonly amountCents: number;
}

/** A payment rail that records every charge it receives: the external effect the guard must run once. */
export class RecordingRail {
  readonly charges: { readonly idempotencyKey: string; readonly amountCents: number }[] = [];

  async charge(idempotencyKey: string, amountCents: number): Promise<string> {
    this.charges.push({ idempotencyKey, amountCents });
    return `ch_${this.charges.length}`;
  }
}

/**
 * A journal over DynamoDB Local and the clock its guards share: it reads the runner's faked `Date`
 * at each call (the guard's default clock is the `Date.now` loaded before the runner faked time),
 * plus an offset a test moves to stand for time passing while an execution is suspended.
 */
export async function durableJournal(): Promise<{
  journal: DynamoDBJournal;
  clock: () => number;
  skipMs(ms: number): void;
}> {
  const client = localClient();
  const tableName = await createJournalTable(client, 'durable');
  let offsetMs = 0;
  const clock = () => Date.now() + offsetMs;
  return {
    journal: new DynamoDBJournal({ tableName, client: DynamoDBDocumentClient.from(client), clock }),
    clock,
    skipMs: (ms) => {
      offsetMs += ms;
    },
  };
}

/** What the fulfilment workflow returns. */
export interface Fulfilment {
  readonly chargeId: string;
  readonly chargeKey: string;
  readonly shipment: string;
}

/**
 * The guarded fulfilment workflow: a charge step (an external effect under `beginEffect`), then
 * whatever `pause` suspends on, then a shipping step.
 */
export function fulfilmentWorkflow(
  rail: RecordingRail,
  options: Omit<MakeIdempotentOptions<Order>, 'operation' | 'key'>,
  pause: (context: DurableContext) => Promise<unknown>,
): (order: Order, context: DurableContext) => Promise<Fulfilment> {
  return makeIdempotent(
    async (order: Order, context: DurableContext): Promise<Fulfilment> => {
      const scope = idempotencyOf(context);
      const chargeKey = scope.deriveKey('charge');
      const chargeId = await context.step('charge', async () => {
        await scope.beginEffect('charge');
        return rail.charge(chargeKey, order.amountCents);
      });
      await pause(context);
      const shipment = await context.step('ship', async () => `shipment-for-${chargeId}`);
      return { chargeId, chargeKey: scope.deriveKey('charge'), shipment };
    },
    { ...options, operation: 'fulfil', key: (order) => order.orderId },
  );
}

import { PaymentsOperation } from '../../../src/handlers/service-config.js';
import { DEMO_LEASE_MS, sleep, type DemoContext } from '../demo-context.js';
import { type Journal, requestPk } from '../../../src/entries/journal.js';
import { newIdempotencyKey } from '../../../src/client/index.js';

const order = (orderId: string, quantity: number) => ({
  amount: 1999 * quantity,
  currency: 'EUR',
  orderId,
  items: [{ sku: 'sku-red-mug', quantity }],
});

/** The first answer is lost after the commit; the client retries with the same key. */
export async function lostResponse(ctx: DemoContext): Promise<void> {
  const { narrator, capture } = ctx;
  narrator.scenario(
    1,
    'A response lost after commit, then retried',
    'The API charged the card and stored the payment, but the 201 never reached the client.',
  );
  const key = newIdempotencyKey();
  const body = order('ord-1001', 2);
  const chargesBefore = ctx.charges;
  narrator.event('client', `POST /payments  Idempotency-Key: ${key.slice(0, 8)}…  amount 3998 EUR`);
  const first = await ctx.paymentsContainer()(ctx.paymentRequest(key, body));
  ctx.answer('api', first, capture.drain()[0]);
  narrator.event('network', '✂ the response is dropped on the way back (client sees a timeout)');
  narrator.event('client', 'retries the same intent with the same key');
  const retry = await ctx.paymentsContainer()(ctx.paymentRequest(key, body));
  ctx.answer('api', retry, capture.drain()[0]);
  const same = first.body === retry.body;
  narrator.verdict(
    'lost response',
    same && ctx.charges - chargesBefore === 1,
    `same payment, byte-identical body, ${ctx.charges - chargesBefore} charge at the rail`,
  );
}

/** Two requests with one key arrive together (a double tap, or two clients racing). */
export async function doubleTap(ctx: DemoContext): Promise<void> {
  const { narrator, capture } = ctx;
  narrator.scenario(
    2,
    'A double tap',
    'Two requests with the same key reach two Lambda containers at the same moment.',
  );
  const key = newIdempotencyKey();
  const body = order('ord-1002', 1);
  const chargesBefore = ctx.charges;
  narrator.event('client', `POST /payments ×2 at once  Idempotency-Key: ${key.slice(0, 8)}…`);
  const answers = await Promise.all([
    ctx.paymentsContainer()(ctx.paymentRequest(key, body)),
    ctx.paymentsContainer()(ctx.paymentRequest(key, body)),
  ]);
  const lines = capture.drain();
  for (const answer of answers)
    ctx.answer(
      'api',
      answer,
      lines.find((l) => l.responseCode === answer.statusCode && (answer.statusCode !== 201 || l.status !== 'replay')) ??
        lines[0],
    );
  const loser = answers.find((a) => a.statusCode === 409);
  if (loser) {
    narrator.event('client', `the 409 says Retry-After: ${loser.headers?.['retry-after']} s; it retries after that`);
    await sleep(1_000);
    ctx.answer('api', await ctx.paymentsContainer()(ctx.paymentRequest(key, body)), capture.drain()[0]);
  }
  const charged = ctx.charges - chargesBefore;
  narrator.verdict(
    'double tap',
    charged === 1,
    `one charge (${charged}); the other request got a 409 or the replay, never a second payment`,
  );
}

/** The same key is reused with a different amount. */
export async function changedAmount(ctx: DemoContext): Promise<void> {
  const { narrator, capture } = ctx;
  narrator.scenario(3, 'The same key with a changed amount', 'A buggy client reuses its key for a different request.');
  const key = newIdempotencyKey();
  await ctx.paymentsContainer()(ctx.paymentRequest(key, order('ord-1003', 1)));
  capture.drain();
  narrator.event(
    'client',
    `POST /payments  Idempotency-Key: ${key.slice(0, 8)}…  amount 1999 EUR  (completed earlier)`,
  );
  narrator.event('client', `POST /payments  Idempotency-Key: ${key.slice(0, 8)}…  amount 5997 EUR`);
  const mismatch = await ctx.paymentsContainer()(ctx.paymentRequest(key, order('ord-1003', 3)));
  ctx.answer('api', mismatch, capture.drain()[0]);
  const original = await ctx.paymentsContainer()(ctx.paymentRequest(key, order('ord-1003', 1)));
  narrator.event('client', 'sends the original request again');
  ctx.answer('api', original, capture.drain()[0]);
  narrator.verdict(
    'changed amount',
    mismatch.statusCode === 422 && original.statusCode === 201,
    '422 for the changed request; the stored payment is untouched and still replays',
  );
}

/**
 * The container dies after the payment rail answered and the charge id was recorded, before
 * the outcome was stored. Simulated by a journal whose completion write never returns.
 */
export async function crashAfterRail(ctx: DemoContext): Promise<void> {
  const { narrator, capture } = ctx;
  narrator.scenario(
    4,
    'A crash after the payment rail answered',
    'The rail charged the card, the charge id was recorded as evidence, then the container died.',
  );
  const key = newIdempotencyKey();
  const body = order('ord-1004', 1);
  const chargesBefore = ctx.charges;
  const dying: Journal = new Proxy(ctx.journal, {
    get: (target, name, receiver) =>
      name === 'complete' ? () => new Promise(() => undefined) : Reflect.get(target, name, receiver),
  });
  narrator.event('client', `POST /payments  Idempotency-Key: ${key.slice(0, 8)}…`);
  // The dead container never answers; Middy's early timeout rejects it later, which nobody is waiting for.
  ctx
    .paymentsContainer(dying)(ctx.paymentRequest(key, body))
    .catch(() => undefined);
  await sleep(300);
  const record = await ctx.journal.get(requestPk('-', PaymentsOperation.createPayment, key));
  narrator.event(
    'container',
    `beginEffect('charge') → rail charged → recordEvidence(${JSON.stringify(record?.evidence ?? {})}) → 💥 killed`,
  );
  narrator.event('client', 'times out and retries at once');
  const early = await ctx.paymentsContainer()(ctx.paymentRequest(key, body));
  ctx.answer('api', early, capture.drain()[0]);
  narrator.event('client', `waits for the lease (${DEMO_LEASE_MS} ms) and retries`);
  await sleep(DEMO_LEASE_MS + 200);
  const recovered = await ctx.paymentsContainer()(ctx.paymentRequest(key, body));
  ctx.answer('api', recovered, capture.drain()[0]);
  const charged = ctx.charges - chargesBefore;
  narrator.verdict(
    'crash after rail',
    recovered.statusCode === 201 && charged === 1,
    `the retry took over the lease and finished from the recorded charge id: ${charged} charge at the rail`,
  );
}

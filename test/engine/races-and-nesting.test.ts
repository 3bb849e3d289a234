import middy from '@middy/core';
import {
  MemoryJournal,
  fingerprintOf,
  httpIdempotency,
  idempotencyOf,
  makeIdempotent,
  type MetricsSink,
} from '../../src/index.js';
import { httpEvent, lambdaContext } from '../support/lambda.js';

const countingMetrics = (names: string[]): MetricsSink =>
  ({
    singleMetric: () => ({
      addDimension: () => undefined,
      addMetric: (name: string) => names.push(name),
      clearDefaultDimensions: () => undefined,
    }),
  }) as never;

describe('races between a retry and the attempt it finds', () => {
  it('replays the outcome when the original attempt completes just before the retry marks it UNKNOWN', async () => {
    const clock = { now: 1_000_000_000_000 };
    class RacyJournal extends MemoryJournal {
      override async markAbandonedUnknown(pk: string, token: string) {
        await this.complete({ pk, leaseToken: token, response: { by: 'original' }, ttlSeconds: 3600 });
        return super.markAbandonedUnknown(pk, token);
      }
    }
    const journal = new RacyJournal({ clock: () => clock.now });
    const reserved = await journal.reserve({
      pk: 'req#-#op#k',
      fingerprint: fingerprintOf({ id: 'k' }),
      leaseMs: 1000,
      ttlSeconds: 3600,
    });
    await journal.beginEffect('req#-#op#k', reserved.record.leaseToken, 'charge');
    clock.now += 2_000;
    const metrics: string[] = [];
    const retry = makeIdempotent(async () => ({ by: 'retry' }), {
      journal,
      operation: 'op',
      key: (i: { id: string }) => i.id,
      clock: () => clock.now,
      metrics: countingMetrics(metrics),
    });
    expect(await retry({ id: 'k' })).toEqual({ by: 'original' });
    expect(metrics).not.toContain('UnknownAfterEffect');
  });
});

describe('a recover hook answering completed over HTTP', () => {
  it('stores only the allow-listed headers of the response it hands back', async () => {
    const clock = { now: 1_000_000_000_000 };
    const journal = new MemoryJournal({ clock: () => clock.now });
    const options = { journal, leaseMs: 1_000, clock: () => clock.now };
    // Never settles, like a frozen container. Middy's early timeout is off: armed, it would keep a
    // 10-second timer alive after the suite (the remaining time of the test context).
    const crashing = middy(
      async (_event: unknown, context: object) => {
        await idempotencyOf(context).beginEffect('charge');
        await new Promise(() => undefined);
      },
      { timeoutEarlyInMillis: 0 },
    ).use(httpIdempotency(options));
    void crashing(httpEvent({ key: 'recover-1', body: {} }), lambdaContext());
    await new Promise((resolve) => setImmediate(resolve));
    clock.now += 2_000;
    const recovering = middy(async (): Promise<any> => ({ statusCode: 500, body: 'not run' })).use(
      httpIdempotency({
        ...options,
        recover: async () => ({
          outcome: 'completed',
          response: {
            statusCode: 201,
            headers: { location: '/p/1', 'set-cookie': 'session=secret' },
            body: 'recovered',
          },
        }),
      }),
    );
    const first = await recovering(httpEvent({ key: 'recover-1', body: {} }), lambdaContext());
    const replay = await recovering(httpEvent({ key: 'recover-1', body: {} }), lambdaContext());
    for (const answer of [first, replay]) {
      expect(answer).toMatchObject({ statusCode: 201, body: 'recovered', headers: { location: '/p/1' } });
      expect(answer.headers['set-cookie']).toBeUndefined();
    }
  });
});

describe('a guarded function called from a guarded handler', () => {
  const journal = new MemoryJournal();
  const reserveStock = makeIdempotent(async (order: { id: string; qty: number }) => ({ reserved: order.qty }), {
    journal,
    operation: 'reserveStock',
    key: (o) => o.id,
  });
  const handler = middy(async (event: any, context: object) => {
    const outer = idempotencyOf(context).key;
    const body = JSON.parse(event.body);
    const result = await reserveStock({ id: body.orderId, qty: body.qty }, context);
    return { statusCode: 201, body: JSON.stringify({ outer, after: idempotencyOf(context).key, result }) };
  }).use(httpIdempotency({ journal }));

  it('leaves the handler its own scope', async () => {
    const answer = await handler(httpEvent({ key: 'outer-1', body: { orderId: 'o-1', qty: 2 } }), lambdaContext());
    expect(JSON.parse(answer.body)).toEqual({ outer: 'outer-1', after: 'outer-1', result: { reserved: 2 } });
  });

  it('does not answer the outer request with the inner guard’s mismatch', async () => {
    const answer = await handler(
      httpEvent({ key: 'outer-2', body: { orderId: 'o-1', qty: 3 } }),
      lambdaContext(),
    ).catch((error) => error);
    expect(answer.statusCode).not.toBe(422);
    expect(answer).toMatchObject({ code: 'idempotency-key-reused' });
  });
});

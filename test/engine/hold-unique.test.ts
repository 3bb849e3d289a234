/**
 * A uniqueness claim that guards an external effect is decided before the effect:
 * `holdUnique` takes it at once, so the request that loses the race is refused with 409 before
 * it reaches the payment rail — released, never `UNKNOWN`, no `UnknownAfterEffect` alarm.
 */
import { GetItemCommand } from '@aws-sdk/client-dynamodb';
import middy from '@middy/core';
import {
  DynamoDBJournal,
  httpIdempotency,
  idempotencyOf,
  makeIdempotent,
  MetricName,
  UniqueConflictError,
  type HttpResponse,
} from '../../src/index.js';
import { dynamoJournal } from '../support/dynamodb.js';
import { httpEvent, lambdaContext } from '../support/lambda.js';
import { metricCounter } from '../sqs/consumer-fixtures.js';
import { requestPk, uniquePk } from '../../src/entries/journal.js';

const quiet = { info: () => undefined, error: () => undefined } as never;

/** A refund handler: holds the refund of the payment, begins the effect, waits at `gate`, then refunds. */
function refunds(gate: Promise<void>) {
  const rail: string[] = [];
  const handler = async (event: { body?: string }, context?: object) => {
    const { paymentId } = JSON.parse(event.body ?? '{}') as { paymentId: string };
    const scope = idempotencyOf(context as object);
    await scope.holdUnique('refund', paymentId);
    await scope.beginEffect('refund');
    await gate;
    rail.push(paymentId);
    return { statusCode: 201, body: JSON.stringify({ refunded: paymentId }) };
  };
  return { rail, handler };
}

describe('holdUnique in a guarded handler, on DynamoDB Local', () => {
  it('refuses the second of two racing refunds with 409 before its effect, leaving its key released', async () => {
    const { journal } = await dynamoJournal();
    const metrics = metricCounter();
    try {
      let open!: () => void;
      const gate = new Promise<void>((resolve) => (open = resolve));
      const { rail, handler } = refunds(gate);
      const guarded = middy(handler).use(httpIdempotency({ journal }));
      const first = guarded(httpEvent({ key: 'refund-a', body: { paymentId: 'pay_1' } }), lambdaContext());
      // The first request holds the claim and waits inside its effect.
      for (let i = 0; i < 100 && !(await journal.get(requestPk('-', 'POST /payments', 'refund-a')))?.effectStarted; i++)
        await new Promise((resolve) => setTimeout(resolve, 20));

      const second = (await guarded(
        httpEvent({ key: 'refund-b', body: { paymentId: 'pay_1' } }),
        lambdaContext(),
      )) as Required<HttpResponse>;
      open();
      const won = (await first) as HttpResponse;

      expect(second.statusCode).toBe(409);
      expect(JSON.parse(second.body).type).toBe('urn:idemkit:problem:uniqueness-conflict');
      expect(second.headers['retry-after']).toBeUndefined();
      expect(won.statusCode).toBe(201);
      expect(rail).toEqual(['pay_1']);
      expect(await journal.get(requestPk('-', 'POST /payments', 'refund-b'))).toBeUndefined();
      expect(metrics.count(MetricName.unknownAfterEffect)).toBe(0);
      expect(metrics.count(MetricName.commitConflict)).toBe(1);
    } finally {
      metrics.restore();
    }
  });

  it('makes the claim permanent with the completion: a later refund with another key is refused too', async () => {
    const { journal } = await dynamoJournal();
    const { rail, handler } = refunds(Promise.resolve());
    const guarded = middy(handler).use(httpIdempotency({ journal }));

    await guarded(httpEvent({ key: 'refund-c', body: { paymentId: 'pay_2' } }), lambdaContext());
    const later = (await guarded(
      httpEvent({ key: 'refund-d', body: { paymentId: 'pay_2' } }),
      lambdaContext(),
    )) as HttpResponse;

    expect(later.statusCode).toBe(409);
    expect(rail).toEqual(['pay_2']);
  });

  it('keeps the claim of a refund the recover hook completed, after its key expired and came back as new work', async () => {
    const { client, tableName } = await dynamoJournal();
    const clock = { now: Date.UTC(2026, 11, 1) };
    const journal = new DynamoDBJournal({ tableName, client, clock: () => clock.now });
    const rail: string[] = [];
    let answerLost = true;
    const refund = makeIdempotent(
      async (input: { key: string; paymentId: string }, context) => {
        const scope = idempotencyOf(context);
        await scope.holdUnique('refund', input.paymentId);
        await scope.beginEffect('refund');
        rail.push(input.paymentId);
        // The rail's answer is lost: the handler fails after the money moved, and the record becomes UNKNOWN.
        if (answerLost) throw new Error('the rail timed out');
        return { refunded: input.paymentId };
      },
      {
        journal,
        operation: 'refund',
        key: (input) => input.key,
        clock: () => clock.now,
        ttlSeconds: 60,
        // The retry finds the refund at the rail and stores it without running the handler.
        recover: async () => ({ outcome: 'completed', response: { refunded: 'pay_7' } }),
        logger: quiet,
      },
    );
    const failed = await refund({ key: 'refund-g', paymentId: 'pay_7' }).catch((error: unknown) => error);
    answerLost = false;
    const recovered = await refund({ key: 'refund-g', paymentId: 'pay_7' });
    clock.now += 120_000;

    const reused = await refund({ key: 'refund-g', paymentId: 'pay_7' }).catch((error: unknown) => error);
    const other = await refund({ key: 'refund-h', paymentId: 'pay_7' }).catch((error: unknown) => error);

    expect(failed).toMatchObject({ message: 'the rail timed out' });
    expect(recovered).toEqual({ refunded: 'pay_7' });
    expect(reused).toBeInstanceOf(UniqueConflictError);
    expect(other).toBeInstanceOf(UniqueConflictError);
    expect(rail).toEqual(['pay_7']);
  });

  it('lets the claim go when the handler fails before any effect, so a retry can refund', async () => {
    const { journal, client, tableName } = await dynamoJournal();
    let failOnce = true;
    const guarded = middy(async (event: { body?: string }, context?: object) => {
      const { paymentId } = JSON.parse(event.body ?? '{}') as { paymentId: string };
      await idempotencyOf(context as object).holdUnique('refund', paymentId);
      if (failOnce) {
        failOnce = false;
        throw new Error('the rail is down');
      }
      return { statusCode: 201, body: '{}' };
    }).use(httpIdempotency({ journal }));

    const failed = await guarded(httpEvent({ key: 'refund-e', body: { paymentId: 'pay_3' } }), lambdaContext()).catch(
      (error: Error) => error,
    );
    const retry = (await guarded(
      httpEvent({ key: 'refund-f', body: { paymentId: 'pay_3' } }),
      lambdaContext(),
    )) as HttpResponse;

    expect(failed).toMatchObject({ message: 'the rail is down' });
    expect(retry.statusCode).toBe(201);

    const claim = await client.send(
      new GetItemCommand({ TableName: tableName, Key: { pk: { S: uniquePk('refund', 'pay_3') } } }),
    );
    expect(claim.Item?.claimedBy).toEqual({ S: requestPk('-', 'POST /payments', 'refund-f') });
  });
});

import { problemType, stallAt } from './support/payment-fixture.js';
import { faultEnvironment, leaseEnds, paymentEvent, type FaultEnvironment } from './support/fault-environment.js';

describe('an attempt that stalls past its lease against DynamoDB Local', () => {
  let env: FaultEnvironment;
  beforeAll(async () => {
    env = await faultEnvironment();
  });

  it('cannot begin its effect once another attempt took the record over: it returns the stored outcome, and the rail is charged once', async () => {
    const stall = stallAt('before-begin-effect');
    const stale = env.healthyFunction({ onStep: stall.onStep })({ key: 'll-fn', amount: 1250 });
    await stall.stalled;
    await leaseEnds();
    const fresh = await env.healthyFunction()({ key: 'll-fn', amount: 1250 });

    stall.resume();

    expect(await stale).toEqual(fresh);
    expect(JSON.parse(fresh.body).attempt).toBe(2);
    expect(await env.rail('ll-fn')).toBe(1);
    expect(await env.ledger('ll-fn')).toBe(1);
  });

  it('answers the stored outcome to an HTTP caller whose attempt lost its lease before beginEffect', async () => {
    const stall = stallAt('before-begin-effect');
    const stale = env.healthy({ onStep: stall.onStep })(paymentEvent('ll-http'));
    await stall.stalled;
    await leaseEnds();
    const fresh = await env.healthy()(paymentEvent('ll-http'));

    stall.resume();
    const answer = await stale.catch((error: unknown) => ({ statusCode: 0, body: String(error), headers: {} }));

    expect(answer).toMatchObject({ statusCode: 201, body: fresh.body, headers: { 'Idempotent-Replayed': 'true' } });
    expect(await env.rail('ll-http')).toBe(1);
  });

  it('lets an attempt that began its effect and stalled past its lease still complete the record a retry found needing review', async () => {
    const stall = stallAt('after-begin-effect');
    const stale = env.healthy({ onStep: stall.onStep })(paymentEvent('ll-late-owner'));
    await stall.stalled;
    await leaseEnds();
    const retry = await env.healthy()(paymentEvent('ll-late-owner'));

    stall.resume();
    const own = await stale;
    const replay = await env.healthy()(paymentEvent('ll-late-owner'));

    expect(problemType(retry)).toBe('urn:idemkit:problem:needs-review');
    expect(own.statusCode).toBe(201);
    expect(JSON.parse(own.body).attempt).toBe(1);
    expect(replay).toMatchObject({ body: own.body, headers: { 'Idempotent-Replayed': 'true' } });
    expect(await env.rail('ll-late-owner')).toBe(1);
    expect(await env.ledger('ll-late-owner')).toBe(1);
  });
});

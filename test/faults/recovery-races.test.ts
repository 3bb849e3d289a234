import { RecordStatus } from '../../src/index.js';
import { guardedPayment, problemType, stallAt } from './support/payment-fixture.js';
import { faultEnvironment, LEASE_MS, paymentEvent, type FaultEnvironment } from './support/fault-environment.js';

describe('retries racing on a record whose effect may have happened, on DynamoDB Local', () => {
  let env: FaultEnvironment;
  beforeAll(async () => {
    env = await faultEnvironment();
  });

  it('lets one retry at a time rerun an UNKNOWN record: a second retry meets 409 while the first rerun holds it, and the rail is not charged again', async () => {
    await env.healthy({ statusCode: 503 })(paymentEvent('race-unknown'));
    const stall = stallAt('after-side-effect');
    const recover = async () => ({ outcome: 'rerun' as const });
    const rerun = guardedPayment(
      env.journal,
      env.client,
      env.tables,
      { onStep: stall.onStep },
      { leaseMs: LEASE_MS, recover },
    )(paymentEvent('race-unknown'));
    await stall.stalled;

    const second = await guardedPayment(
      env.journal,
      env.client,
      env.tables,
      {},
      { leaseMs: LEASE_MS, recover },
    )(paymentEvent('race-unknown'));
    stall.resume();
    const first = await rerun;

    expect(await env.rail('race-unknown')).toBe(2);
    expect(problemType(second)).toBe('urn:idemkit:problem:request-in-progress');
    expect(first).toMatchObject({ statusCode: 201 });
    expect((await env.journal.get(env.pk('race-unknown')))?.status).toBe(RecordStatus.completed);
    expect(await env.ledger('race-unknown')).toBe(1);
  });
});

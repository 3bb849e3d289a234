import { RecordStatus } from '../../src/index.js';
import { problemType } from './support/payment-fixture.js';
import { faultEnvironment, leaseEnds, paymentEvent, type FaultEnvironment } from './support/fault-environment.js';

describe('faults on the takeover of an expired lease (UpdateItem) against DynamoDB Local', () => {
  let env: FaultEnvironment;
  beforeAll(async () => {
    env = await faultEnvironment();
  });

  /** Leaves an IN_PROGRESS record whose owner never comes back (it hangs before beginEffect), and lets its lease end. */
  async function orphan(key: string): Promise<void> {
    let reached: () => void = () => undefined;
    const hung = new Promise<void>((resolve) => (reached = resolve));
    void env.healthy({ onStep: () => (reached(), new Promise<void>(() => undefined)) })(paymentEvent(key));
    await hung;
    await leaseEnds();
  }

  it('answers 503 when the takeover’s answer is lost, and the takeover that landed ends with its lease', async () => {
    await orphan('t-lost');
    const { send, fault } = env.faulty('takeOver', { kind: 'lost-response' });

    const answer = await send(paymentEvent('t-lost'));
    const held = await env.journal.get(env.pk('t-lost'));
    await leaseEnds();
    const retry = await env.healthy()(paymentEvent('t-lost'));

    expect(fault.delivered()).toBe(1);
    expect(answer.statusCode).toBe(503);
    expect(held).toMatchObject({ status: RecordStatus.inProgress, attempt: 2 });
    expect(JSON.parse(retry.body).attempt).toBe(3);
    expect(await env.rail('t-lost')).toBe(1);
  });

  it('recognises its own takeover when the SDK retries an UpdateItem whose answer was lost, and runs the handler', async () => {
    await orphan('t-sdk-retry');
    const { send, fault } = env.faulty('takeOver', { kind: 'lost-response' }, { maxAttempts: 3, times: 1 });

    const answer = await send(paymentEvent('t-sdk-retry'));

    expect(fault.delivered()).toBe(2);
    expect(problemType(answer)).toBeUndefined();
    expect(answer.statusCode).toBe(201);
    expect(JSON.parse(answer.body).attempt).toBe(2);
  });
});

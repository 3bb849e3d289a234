import { RecordStatus } from '../../src/index.js';
import { problemType } from './support/payment-fixture.js';
import {
  faultEnvironment,
  LEASE_MS,
  leaseEnds,
  paymentEvent,
  type FaultEnvironment,
} from './support/fault-environment.js';

/** The rail answered 503: the outcome is not stored and the record is released so a retry runs again. */
const failing = { charge: false, statusCode: 503 };
const succeeding = { charge: false };

describe('faults on the release (DeleteItem) against DynamoDB Local', () => {
  let env: FaultEnvironment;
  beforeAll(async () => {
    env = await faultEnvironment();
  });

  it('passes the handler’s 503 through when the release’s answer is lost, and the key is free for the retry at once', async () => {
    const { send, fault } = env.faulty('release', { kind: 'lost-response' }, { behaviour: failing });

    const answer = await send(paymentEvent('l-lost'));
    const retry = await env.healthy(succeeding)(paymentEvent('l-lost'));

    expect(fault.delivered()).toBe(1);
    expect(answer).toMatchObject({ statusCode: 503, headers: { 'content-type': 'application/json' } });
    expect(retry.statusCode).toBe(201);
    expect(JSON.parse(retry.body).attempt).toBe(1);
    expect(await env.ledger('l-lost')).toBe(1);
  });

  it('passes the handler’s 503 through when the SDK retries a release whose answer was lost', async () => {
    const { send, fault } = env.faulty(
      'release',
      { kind: 'lost-response' },
      { maxAttempts: 3, times: 1, behaviour: failing },
    );

    const answer = await send(paymentEvent('l-sdk-retry'));
    const record = await env.journal.get(env.pk('l-sdk-retry'));

    expect(fault.delivered()).toBe(2);
    expect(answer.statusCode).toBe(503);
    expect(problemType(answer)).toBeUndefined();
    expect(record).toBeUndefined();
  });

  it('leaves a record whose release was throttled to its lease: 409 inside it, one takeover after it', async () => {
    const { send } = env.faulty('release', { kind: 'throttle' }, { behaviour: failing });
    const retry = env.healthy(succeeding);

    const answer = await send(paymentEvent('l-throttled'));
    const inLease = await retry(paymentEvent('l-throttled'));
    await leaseEnds();
    const afterLease = await retry(paymentEvent('l-throttled'));

    expect(answer.statusCode).toBe(503);
    expect(problemType(inLease)).toBe('urn:idemkit:problem:request-in-progress');
    expect(inLease.headers?.['retry-after']).toBe('1');
    expect(JSON.parse(afterLease.body).attempt).toBe(2);
    expect(await env.ledger('l-throttled')).toBe(1);
  });

  it('refuses a release that lands after a takeover: the new owner’s outcome stays', async () => {
    const { send, fault } = env.faulty(
      'release',
      { kind: 'late-write', timeoutMs: 50, deliverAfterMs: 2 * LEASE_MS + 400 },
      { behaviour: failing },
    );

    await send(paymentEvent('l-late'));
    await leaseEnds();
    const retry = await env.healthy(succeeding)(paymentEvent('l-late'));
    await fault.settled();
    const record = await env.journal.get(env.pk('l-late'));

    expect(fault.delivered()).toBe(1);
    expect(retry.statusCode).toBe(201);
    expect(record).toMatchObject({
      status: RecordStatus.completed,
      attempt: 2,
      response: { value: { body: retry.body } },
    });
  });
});

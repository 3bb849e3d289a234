import { RecordStatus } from '../../src/index.js';
import { problemType } from './support/payment-fixture.js';
import { faultEnvironment, leaseEnds, paymentEvent, type FaultEnvironment } from './support/fault-environment.js';

describe('faults on the reservation (PutItem) against DynamoDB Local', () => {
  let env: FaultEnvironment;
  beforeAll(async () => {
    env = await faultEnvironment();
  });

  it('fails closed when the reservation’s answer is lost: 503 with Retry-After, and the handler does not run', async () => {
    const { send, fault } = env.faulty('reserve', { kind: 'lost-response' });

    const answer = await send(paymentEvent('r-lost-1'));

    expect(fault.delivered()).toBe(1);
    expect(answer.statusCode).toBe(503);
    expect(answer.headers?.['retry-after']).toBe('1');
    expect(problemType(answer)).toBe('urn:idemkit:problem:journal-unavailable');
    expect(await env.rail('r-lost-1')).toBe(0);
  });

  it('keeps the orphaned reservation of a lost answer until its lease ends, then lets one retry take it over', async () => {
    const { send } = env.faulty('reserve', { kind: 'lost-response' });
    await send(paymentEvent('r-lost-2'));
    const retry = env.healthy();

    const inLease = await retry(paymentEvent('r-lost-2'));
    await leaseEnds();
    const afterLease = await retry(paymentEvent('r-lost-2'));
    const replay = await retry(paymentEvent('r-lost-2'));

    expect(problemType(inLease)).toBe('urn:idemkit:problem:request-in-progress');
    expect(afterLease.statusCode).toBe(201);
    expect(JSON.parse(afterLease.body).attempt).toBe(2);
    expect(replay).toMatchObject({
      statusCode: 201,
      body: afterLease.body,
      headers: { 'Idempotent-Replayed': 'true' },
    });
    expect(await env.ledger('r-lost-2')).toBe(1);
    expect(await env.rail('r-lost-2')).toBe(1);
  });

  it('recognises its own reservation when the SDK retries a PutItem whose answer was lost, and runs the handler', async () => {
    const { send, fault } = env.faulty('reserve', { kind: 'lost-response' }, { maxAttempts: 3, times: 1 });

    const answer = await send(paymentEvent('r-sdk-retry'));

    expect(fault.delivered()).toBe(2);
    expect(answer.statusCode).toBe(201);
    expect(JSON.parse(answer.body).attempt).toBe(1);
    expect(await env.ledger('r-sdk-retry')).toBe(1);
  });

  it('answers a throttled reservation with 429 after one SDK attempt: no record, and the next retry runs at once', async () => {
    const { send, fault } = env.faulty('reserve', { kind: 'throttle' }, { maxAttempts: 3 });

    const answer = await send(paymentEvent('r-throttled'));
    const stored = await env.journal.get(env.pk('r-throttled'));
    const retry = await env.healthy()(paymentEvent('r-throttled'));

    expect(fault.fired()).toBe(1);
    expect(answer.statusCode).toBe(429);
    expect(problemType(answer)).toBe('urn:idemkit:problem:journal-throttled');
    expect(['1', '2', '3']).toContain(answer.headers?.['retry-after']);
    expect(stored).toBeUndefined();
    expect(retry.statusCode).toBe(201);
    expect(JSON.parse(retry.body).attempt).toBe(1);
    expect(await env.rail('r-throttled')).toBe(1);
  });

  it('answers 503 when the reservation times out, and resolves the reservation that lands late by its lease', async () => {
    const { send, fault } = env.faulty('reserve', { kind: 'late-write', timeoutMs: 50, deliverAfterMs: 150 });

    const answer = await send(paymentEvent('r-late'));
    await fault.settled();
    const orphan = await env.journal.get(env.pk('r-late'));
    await leaseEnds();
    const retry = await env.healthy()(paymentEvent('r-late'));

    expect(answer.statusCode).toBe(503);
    expect(orphan).toMatchObject({ status: RecordStatus.inProgress, attempt: 1, effectStarted: false });
    expect(retry.statusCode).toBe(201);
    expect(JSON.parse(retry.body).attempt).toBe(2);
    expect(await env.ledger('r-late')).toBe(1);
    expect(await env.rail('r-late')).toBe(1);
  });
});

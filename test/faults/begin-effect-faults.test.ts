import { JournalUnavailableError, RecordStatus } from '../../src/index.js';
import { faultEnvironment, type FaultEnvironment } from './support/fault-environment.js';

describe('faults on beginEffect (UpdateItem) against DynamoDB Local', () => {
  let env: FaultEnvironment;
  beforeAll(async () => {
    env = await faultEnvironment();
  });

  it('stops the handler before its effect when beginEffect’s answer is lost, releases the key, and the retry charges once', async () => {
    const { call, fault } = env.faulty('beginEffect', { kind: 'lost-response' });

    const failed = call({ key: 'b-lost', amount: 1250 });
    await expect(failed).rejects.toBeInstanceOf(JournalUnavailableError);
    const released = await env.journal.get(env.pk('b-lost'));
    const retry = await env.healthyFunction()({ key: 'b-lost', amount: 1250 });

    expect(fault.delivered()).toBe(1);
    expect(released).toBeUndefined();
    expect(JSON.parse(retry.body).attempt).toBe(1);
    expect(await env.rail('b-lost')).toBe(1);
    expect(await env.ledger('b-lost')).toBe(1);
  });

  it('charges once when the SDK retries a beginEffect whose answer was lost', async () => {
    const { call, fault } = env.faulty('beginEffect', { kind: 'lost-response' }, { maxAttempts: 3, times: 1 });

    const result = await call({ key: 'b-sdk-retry', amount: 1250 });
    const record = await env.journal.get(env.pk('b-sdk-retry'));

    expect(fault.delivered()).toBe(2);
    expect(result.statusCode).toBe(201);
    expect(record).toMatchObject({ status: RecordStatus.completed, effectStarted: true });
    expect(await env.rail('b-sdk-retry')).toBe(1);
  });

  it('stops the handler before its effect when beginEffect is throttled, and the retry charges once', async () => {
    const { call } = env.faulty('beginEffect', { kind: 'throttle' });

    await expect(call({ key: 'b-throttled', amount: 1250 })).rejects.toBeInstanceOf(JournalUnavailableError);
    const railAfterFault = await env.rail('b-throttled');
    const retry = await env.healthyFunction()({ key: 'b-throttled', amount: 1250 });
    const replay = await env.healthyFunction()({ key: 'b-throttled', amount: 1250 });

    expect(railAfterFault).toBe(0);
    expect(retry.statusCode).toBe(201);
    expect(replay).toEqual(retry);
    expect(await env.rail('b-throttled')).toBe(1);
    expect(await env.ledger('b-throttled')).toBe(1);
  });
});

import { RecordStatus } from '../../src/index.js';
import { problemType } from './support/payment-fixture.js';
import {
  faultEnvironment,
  LEASE_MS,
  leaseEnds,
  paymentEvent,
  type FaultEnvironment,
} from './support/fault-environment.js';

/** The handler of these tests stages its ledger write but does not begin an effect, so a retry may run it again. */
const staged = { charge: false };
/** A handler with nothing staged: its completion is a plain fenced UpdateItem. */
const plain = { charge: false, stage: false };

describe('faults on the completion transaction (TransactWriteItems) against DynamoDB Local', () => {
  let env: FaultEnvironment;
  beforeAll(async () => {
    env = await faultEnvironment();
  });

  it('answers 503 when the committed transaction’s answer is lost, and the retry replays the committed outcome', async () => {
    const { send, fault } = env.faulty('complete', { kind: 'lost-response' }, { behaviour: staged });

    const answer = await send(paymentEvent('c-lost'));
    const retry = await env.healthy(staged)(paymentEvent('c-lost'));

    expect(fault.delivered()).toBe(1);
    expect(problemType(answer)).toBe('urn:idemkit:problem:journal-unavailable');
    expect(retry.headers?.['Idempotent-Replayed']).toBe('true');
    expect(JSON.parse(retry.body).attempt).toBe(1);
    expect(await env.ledger('c-lost')).toBe(1);
  });

  it('stores and answers the handler’s own outcome when the SDK retries a transaction whose answer was lost', async () => {
    const { send, fault } = env.faulty(
      'complete',
      { kind: 'lost-response' },
      { maxAttempts: 3, times: 1, behaviour: staged },
    );

    const answer = await send(paymentEvent('c-sdk-retry'));
    const replay = await env.healthy(staged)(paymentEvent('c-sdk-retry'));

    expect(fault.delivered()).toBe(2);
    expect(answer.statusCode).toBe(201);
    expect(answer.headers?.['Idempotent-Replayed']).toBeUndefined();
    expect(replay).toMatchObject({ statusCode: 201, body: answer.body });
    expect(await env.ledger('c-sdk-retry')).toBe(1);
  });

  it('commits nothing and answers 429 when the transaction is throttled; the retry after the lease commits once', async () => {
    const { send } = env.faulty('complete', { kind: 'throttle' }, { behaviour: staged });

    const answer = await send(paymentEvent('c-throttled'));
    const ledgerAfterFault = await env.ledger('c-throttled');
    await leaseEnds();
    const retry = await env.healthy(staged)(paymentEvent('c-throttled'));
    const replay = await env.healthy(staged)(paymentEvent('c-throttled'));

    expect(answer.statusCode).toBe(429);
    expect(problemType(answer)).toBe('urn:idemkit:problem:journal-throttled');
    expect(['1', '2', '3']).toContain(answer.headers?.['retry-after']);
    expect(ledgerAfterFault).toBe(0);
    expect(retry.statusCode).toBe(201);
    expect(JSON.parse(retry.body).attempt).toBe(2);
    expect(replay.body).toBe(retry.body);
    expect(await env.ledger('c-throttled')).toBe(1);
  });

  it('fences a transaction that lands after a takeover: the late commit is refused and the retry’s outcome stays', async () => {
    const { send, fault } = env.faulty(
      'complete',
      { kind: 'late-write', timeoutMs: 50, deliverAfterMs: 2 * LEASE_MS + 400 },
      { behaviour: staged },
    );

    const answer = await send(paymentEvent('c-late'));
    await leaseEnds();
    const retry = await env.healthy(staged)(paymentEvent('c-late'));
    await fault.settled();
    const replay = await env.healthy(staged)(paymentEvent('c-late'));

    expect(answer.statusCode).toBe(503);
    expect(fault.delivered()).toBe(1);
    expect(JSON.parse(retry.body).attempt).toBe(2);
    expect(replay).toMatchObject({ body: retry.body, headers: { 'Idempotent-Replayed': 'true' } });
    expect(await env.ledger('c-late')).toBe(1);
  });

  it('replays the outcome of a transaction that lands after its attempt answered 503', async () => {
    const { send, fault } = env.faulty(
      'complete',
      { kind: 'late-write', timeoutMs: 50, deliverAfterMs: 150 },
      { behaviour: staged },
    );

    const answer = await send(paymentEvent('c-late-landed'));
    await fault.settled();
    const retry = await env.healthy(staged)(paymentEvent('c-late-landed'));

    expect(answer.statusCode).toBe(503);
    expect(retry.headers?.['Idempotent-Replayed']).toBe('true');
    expect(JSON.parse(retry.body).attempt).toBe(1);
    expect(await env.ledger('c-late-landed')).toBe(1);
  });
});

describe('faults on a plain completion (UpdateItem) against DynamoDB Local', () => {
  let env: FaultEnvironment;
  beforeAll(async () => {
    env = await faultEnvironment();
  });

  it('answers the handler’s outcome when the completion’s answer is lost, and the retry replays it', async () => {
    const { send } = env.faulty('complete', { kind: 'lost-response' }, { behaviour: plain });

    const answer = await send(paymentEvent('u-lost'));
    const retry = await env.healthy(plain)(paymentEvent('u-lost'));

    expect(answer.statusCode).toBe(201);
    expect(retry).toMatchObject({ statusCode: 201, body: answer.body, headers: { 'Idempotent-Replayed': 'true' } });
  });

  it('stores the handler’s outcome when the SDK retries a completion whose answer was lost', async () => {
    const { send, fault } = env.faulty(
      'complete',
      { kind: 'lost-response' },
      { maxAttempts: 3, times: 1, behaviour: plain },
    );

    const answer = await send(paymentEvent('u-sdk-retry'));
    const record = await env.journal.get(env.pk('u-sdk-retry'));

    expect(fault.delivered()).toBe(2);
    expect(JSON.parse(answer.body).attempt).toBe(1);
    expect(record).toMatchObject({
      status: RecordStatus.completed,
      response: { value: { statusCode: 201, body: answer.body } },
    });
  });

  it('answers the handler’s own response, not a replay, when the SDK retries a completion whose answer was lost', async () => {
    const { send } = env.faulty('complete', { kind: 'lost-response' }, { maxAttempts: 3, times: 1, behaviour: plain });

    const answer = await send(paymentEvent('u-sdk-retry-own'));

    expect(answer.statusCode).toBe(201);
    expect(answer.headers?.['Idempotent-Replayed']).toBeUndefined();
  });

  it('returns the handler’s outcome when the completion is throttled, leaves the record to its lease, and the retry then runs again', async () => {
    const { send } = env.faulty('complete', { kind: 'throttle' }, { behaviour: plain });

    const answer = await send(paymentEvent('u-throttled'));
    const record = await env.journal.get(env.pk('u-throttled'));
    await leaseEnds();
    const retry = await env.healthy(plain)(paymentEvent('u-throttled'));

    expect(answer.statusCode).toBe(201);
    expect(JSON.parse(answer.body).attempt).toBe(1);
    expect(record).toMatchObject({ status: RecordStatus.inProgress, effectStarted: false });
    expect(retry.statusCode).toBe(201);
    expect(JSON.parse(retry.body).attempt).toBe(2);
  });

  it('answers 409 needs-review after the lease when an effect had begun and its completion was throttled', async () => {
    const { send } = env.faulty('complete', { kind: 'throttle' });

    const answer = await send(paymentEvent('u-effect-throttled'));
    await leaseEnds();
    const retry = await env.healthy()(paymentEvent('u-effect-throttled'));
    const record = await env.journal.get(env.pk('u-effect-throttled'));

    expect(answer.statusCode).toBe(429);
    expect(problemType(retry)).toBe('urn:idemkit:problem:needs-review');
    expect(record?.status).toBe(RecordStatus.unknown);
    expect(await env.rail('u-effect-throttled')).toBe(1);
    expect(await env.ledger('u-effect-throttled')).toBe(0);
  });
});

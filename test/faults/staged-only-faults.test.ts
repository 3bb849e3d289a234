import { randomUUID } from 'node:crypto';
import { localClient } from '../support/dynamodb.js';
import { ENTRY_POINTS, pkOf, StagedOnlyWorld } from '../engine/support/staged-only-drivers.js';
import { injectFault } from './support/fault-injection.js';
import { injectCancellation } from './support/transaction-cancellation.js';

const newKey = () => `k-${randomUUID()}`;
/** A client without the SDK's own retries, so each fault meets the guard directly. */
const bareClient = () => localClient({ maxAttempts: 1 });

describe.each(ENTRY_POINTS)('faults on a staged-only commit through %s, against DynamoDB Local', (entryPoint) => {
  let world: StagedOnlyWorld;
  beforeAll(async () => {
    world = await StagedOnlyWorld.create();
  });

  it('reads the record a concurrent commit wrote when TransactionConflict cancels its own, and replays it', async () => {
    const key = newKey();
    const client = bareClient();
    const winner = world.container(entryPoint);
    const conflict = injectCancellation(client, { times: 1, meanwhile: () => winner.send({ key, amount: 100 }) });

    const answer = await world.container(entryPoint, {}, { client }).send({ key, amount: 100 });

    expect(conflict.fired()).toBe(1);
    expect(answer).toMatchObject({ status: 'replay', code: undefined, commands: ['TransactWriteItems', 'GetItem'] });
    expect(world.runs.get(key)).toBe(2);
    expect(await world.entries(key)).toBe(1);
  });

  it('sends its commit again when the conflicting transaction left no record, and commits once', async () => {
    const key = newKey();
    const client = bareClient();
    injectCancellation(client, { times: 1, on: (index) => index === 1 });

    const answer = await world.container(entryPoint, {}, { client }).send({ key, amount: 100 });

    expect(answer).toMatchObject({
      status: 'new',
      code: undefined,
      commands: ['TransactWriteItems', 'TransactWriteItems', 'GetItem'],
    });
    expect(await world.entries(key)).toBe(1);
  });

  it('answers 503 journal-unavailable after a bounded number of conflicts, having committed nothing', async () => {
    const key = newKey();
    const client = bareClient();
    const conflict = injectCancellation(client);

    const answer = await world.container(entryPoint, {}, { client }).send({ key, amount: 100 });

    expect(conflict.fired()).toBe(4);
    expect(answer).toMatchObject({ status: 'journal_unavailable', code: 'journal-unavailable' });
    expect(answer.commands.filter((c) => c === 'TransactWriteItems')).toHaveLength(4);
    expect(answer.commands.filter((c) => c === 'GetItem')).toHaveLength(3);
    if (entryPoint === 'http') expect(answer.httpStatus).toBe(503);
    expect(await world.entries(key)).toBe(0);
    expect(await world.journal().get(pkOf(entryPoint, key))).toBeUndefined();
  });

  it.each([
    [
      'a throttled request',
      (client: ReturnType<typeof bareClient>) => injectFault(client, 'commitStaged', { kind: 'throttle' }),
    ],
    [
      'a ThrottlingError cancellation',
      (client: ReturnType<typeof bareClient>) => injectCancellation(client, { code: 'ThrottlingError' }),
    ],
  ])('answers %s as throttled: 429 with nothing committed, and the retry commits once', async (_name, inject) => {
    const key = newKey();
    const client = bareClient();
    inject(client);

    const answer = await world.container(entryPoint, {}, { client }).send({ key, amount: 100 });
    const retry = await world.container(entryPoint).send({ key, amount: 100 });

    expect(answer).toMatchObject({
      status: 'journal_throttled',
      code: 'journal-throttled',
      commands: ['TransactWriteItems'],
    });
    if (entryPoint === 'http') expect(answer.httpStatus).toBe(429);
    expect(retry.status).toBe('new');
    expect(await world.entries(key)).toBe(1);
  });

  it('answers with its own outcome when the SDK resends a commit whose answer was lost', async () => {
    const key = newKey();
    const client = localClient({ maxAttempts: 3 });
    const fault = injectFault(client, 'commitStaged', { kind: 'lost-response' }, { times: 1 });

    const answer = await world.container(entryPoint, {}, { client }).send({ key, amount: 100 });

    expect(fault.delivered()).toBe(2);
    expect(answer).toMatchObject({ status: 'new', code: undefined });
    if (entryPoint === 'http') expect(answer.replayed).toBe(false);
    expect(await world.entries(key)).toBe(1);
  });

  describe('with nothing staged: the record commits alone in one conditional PutItem', () => {
    const nothing = { stagesNothing: true };

    it('commits with one PutItem, and a retry is answered by the same put refused with the record', async () => {
      const key = newKey();
      const first = await world.container(entryPoint, nothing).send({ key, amount: 100 });
      const retry = await world.container(entryPoint, nothing).send({ key, amount: 100 });
      const other = await world.container(entryPoint, nothing).send({ key, amount: 999 });

      expect(first).toMatchObject({ status: 'new', code: undefined, commands: ['PutItem'] });
      expect(retry).toMatchObject({ status: 'replay', code: undefined, commands: ['PutItem'] });
      expect(retry.result).toEqual(first.result);
      expect(other).toMatchObject({ status: 'mismatch', code: 'idempotency-key-reused', commands: ['PutItem'] });
      expect(await world.journal().get(pkOf(entryPoint, key))).toMatchObject({ status: 'COMPLETED' });
      expect(await world.entries(key)).toBe(0);
    });

    it('answers with its own outcome when the SDK resends a put whose answer was lost', async () => {
      const key = newKey();
      const client = localClient({ maxAttempts: 3 });
      const fault = injectFault(client, 'commitStaged', { kind: 'lost-response' }, { times: 1 });

      const answer = await world.container(entryPoint, nothing, { client }).send({ key, amount: 100 });

      expect(fault.delivered()).toBe(2);
      // One command sent by the guard; the SDK delivered it twice.
      expect(answer).toMatchObject({ status: 'new', code: undefined, commands: ['PutItem'] });
      if (entryPoint === 'http') expect(answer.replayed).toBe(false);
    });

    it('answers a throttled put with 429, nothing committed, and the retry commits once', async () => {
      const key = newKey();
      const client = bareClient();
      injectFault(client, 'commitStaged', { kind: 'throttle' });

      const answer = await world.container(entryPoint, nothing, { client }).send({ key, amount: 100 });
      expect(await world.journal().get(pkOf(entryPoint, key))).toBeUndefined();
      const retry = await world.container(entryPoint, nothing).send({ key, amount: 100 });

      expect(answer).toMatchObject({ status: 'journal_throttled', code: 'journal-throttled' });
      if (entryPoint === 'http') expect(answer.httpStatus).toBe(429);
      expect(retry).toMatchObject({ status: 'new', commands: ['PutItem'] });
    });
  });

  it('answers 503 when a commit that landed lost its answer, and the retry replays it', async () => {
    const key = newKey();
    const client = bareClient();
    injectFault(client, 'commitStaged', { kind: 'lost-response' });

    const answer = await world.container(entryPoint, {}, { client }).send({ key, amount: 100 });
    const retry = await world.container(entryPoint).send({ key, amount: 100 });

    expect(answer).toMatchObject({ status: 'journal_unavailable', code: 'journal-unavailable' });
    expect(retry).toMatchObject({ status: 'replay', code: undefined });
    expect(await world.entries(key)).toBe(1);
  });
});

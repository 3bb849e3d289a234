/**
 * Lambda tenant isolation (`TenancyConfig` `PER_TENANT`) hands each invocation its tenant in
 * `context.tenantId`: a boundary the platform sets, so it is part of every scope whenever present,
 * beside the authorizer's principal or a `tenant` option. Two tenants sending the same key and
 * input never share a record, through every entry point; a function without tenant isolation
 * keeps the records it always had.
 */
import middy from '@middy/core';
import type { Context, SQSEvent } from 'aws-lambda';
import { httpIdempotency, idempotencyOf, makeIdempotent, sqsConsumer } from '../../src/index.js';
import { dynamoJournal } from '../support/dynamodb.js';
import { httpEvent, lambdaContext } from '../support/lambda.js';
import { requestPk, keyScopeOf, messagePk } from '../../src/entries/journal.js';

const quiet = { logger: { info: () => undefined, error: () => undefined } as never };

/** The context Lambda gives an invocation of a tenant-isolated function. */
function tenantContext(tenantId: string | undefined): Context {
  return tenantId === undefined ? lambdaContext() : ({ ...lambdaContext(), tenantId } as Context);
}

type Answer = { statusCode: number; body: string; headers?: Record<string, string> };

describe('httpIdempotency under Lambda tenant isolation', () => {
  async function guardedCounter(options: Partial<Parameters<typeof httpIdempotency>[0]> = {}) {
    const { journal } = await dynamoJournal();
    const runs: string[] = [];
    const handler = middy(async (_event: unknown, context: Context) => {
      runs.push(String(context.tenantId));
      return {
        statusCode: 201,
        body: JSON.stringify({ tenant: context.tenantId, scope: idempotencyOf(context).scope }),
      };
    }).use(httpIdempotency({ journal, ...quiet, ...options }));
    const send = (tenantId: string | undefined, event = httpEvent({ key: 'same-key', body: { amount: 5 } })) =>
      handler(event as never, tenantContext(tenantId)) as Promise<Answer>;
    return { journal, send, runs };
  }

  it('never answers one tenant with another’s outcome for the same key and input (no authorizer)', async () => {
    const { send, runs } = await guardedCounter();

    const acme = await send('acme');
    const globex = await send('globex');
    const acmeRetry = await send('acme');
    const globexRetry = await send('globex');

    expect(runs).toEqual(['acme', 'globex']);
    expect(JSON.parse(acme.body).tenant).toBe('acme');
    expect(JSON.parse(globex.body).tenant).toBe('globex');
    expect(acmeRetry).toMatchObject({ body: acme.body, headers: { 'Idempotent-Replayed': 'true' } });
    expect(globexRetry).toMatchObject({ body: globex.body, headers: { 'Idempotent-Replayed': 'true' } });
  });

  it('keeps each tenant’s record under a key of its own, beside the authorizer’s principal', async () => {
    const { journal, send } = await guardedCounter();
    const event = httpEvent({ key: 'principal-key', body: { amount: 5 }, sub: 'user-7' });

    const answer = await send('acme', event);

    expect(answer.statusCode).toBe(201);
    expect(JSON.parse(answer.body).scope).toBe('acme|user-7#POST /payments');
    const pk = requestPk('user-7', 'POST /payments', 'principal-key', 'acme');
    expect(await journal.get(pk)).toMatchObject({ status: 'COMPLETED' });
    expect(keyScopeOf(pk)).toEqual({
      kind: 'request',
      tenant: 'user-7',
      operation: 'POST /payments',
      key: 'principal-key',
      lambdaTenant: 'acme',
    });
    expect(await journal.get(requestPk('user-7', 'POST /payments', 'principal-key'))).toBeUndefined();
  });

  it('keeps the Lambda tenant beside an explicit tenant option', async () => {
    const { journal, send } = await guardedCounter({ tenant: () => 'shop-1' });

    await send('acme');
    await send('globex');

    expect(await journal.get(requestPk('shop-1', 'POST /payments', 'same-key', 'acme'))).toBeDefined();
    expect(await journal.get(requestPk('shop-1', 'POST /payments', 'same-key', 'globex'))).toBeDefined();
  });

  it('keeps today’s record key for a function without tenant isolation', async () => {
    const { journal, send } = await guardedCounter();

    await send(undefined);

    expect(await journal.get('req#-#POST /payments#same-key')).toMatchObject({ status: 'COMPLETED' });
  });
});

describe('makeIdempotent and sqsConsumer under Lambda tenant isolation', () => {
  it('runs a function once per tenant for the same key and input, and replays each its own result', async () => {
    const { journal } = await dynamoJournal();
    const ran: string[] = [];
    const reserve = makeIdempotent(
      async (order: { id: string }, context: Context) => {
        ran.push(String(context.tenantId));
        return { order: order.id, tenant: context.tenantId };
      },
      { journal, operation: 'reserve', key: (order) => order.id, ...quiet },
    );

    const acme = await reserve({ id: 'o-1' }, tenantContext('acme'));
    const globex = await reserve({ id: 'o-1' }, tenantContext('globex'));
    const acmeRetry = await reserve({ id: 'o-1' }, tenantContext('acme'));

    expect(ran).toEqual(['acme', 'globex']);
    expect(acme).toEqual({ order: 'o-1', tenant: 'acme' });
    expect(globex).toEqual({ order: 'o-1', tenant: 'globex' });
    expect(acmeRetry).toEqual(acme);
    expect(await journal.get(requestPk('-', 'reserve', 'o-1', 'acme'))).toBeDefined();
  });

  it('processes one message id once per tenant', async () => {
    const { journal } = await dynamoJournal();
    const handled: string[] = [];
    const consume = sqsConsumer(
      async (_record, context) => {
        handled.push(String(context.tenantId));
      },
      { journal, consumer: 'orders', ...quiet },
    );
    const event = { Records: [{ messageId: 'm-1', body: '{"n":1}', attributes: {} }] } as unknown as SQSEvent;

    await consume(event, tenantContext('acme'));
    await consume(event, tenantContext('globex'));
    const redelivery = await consume(event, tenantContext('acme'));

    expect(handled).toEqual(['acme', 'globex']);
    expect(redelivery.batchItemFailures).toEqual([]);
    expect(await journal.get(messagePk('orders', 'm-1', 'acme'))).toBeDefined();
    expect(await journal.get(messagePk('orders', 'm-1'))).toBeUndefined();
  });
});

describe('record keys with a Lambda tenant', () => {
  /** Lambda tenant (or none) and principal pairs chosen to collide if the separator could be forged. */
  const pairs: Array<[string | undefined, string]> = [
    [undefined, 'acme%7C-'],
    [undefined, 'acme|-'],
    ['acme', '-'],
    ['acme%7C-', '-'],
    ['acme', '%7C-'],
    ['a', 'b%7C-'],
    ['a%7Cb', '-'],
    ['a#b', 'c'],
    ['a', 'b#c'],
    ['a%', '7C-'],
  ];

  it('gives every pair its own key, and reads each back as it was given', () => {
    const keys = pairs.map(([lambdaTenant, tenant]) => requestPk(tenant, 'op', 'k', lambdaTenant));

    expect(new Set(keys).size).toBe(pairs.length);
    keys.forEach((pk, i) => {
      const [lambdaTenant, tenant] = pairs[i]!;
      expect(keyScopeOf(pk)).toEqual({
        kind: 'request',
        tenant,
        operation: 'op',
        key: 'k',
        ...(lambdaTenant === undefined ? {} : { lambdaTenant }),
      });
    });
  });

  it('reads back a message key with a Lambda tenant', () => {
    const pk = messagePk('or%7Cders#1', 'm#1', 'ten%ant#%7C');

    expect(keyScopeOf(pk)).toEqual({
      kind: 'message',
      consumer: 'or%7Cders#1',
      messageId: 'm#1',
      lambdaTenant: 'ten%ant#%7C',
    });
  });
});

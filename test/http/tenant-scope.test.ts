import middy from '@middy/core';
import { httpIdempotency } from '../../src/index.js';
import { lambdaContext } from '../support/lambda.js';
import { dynamoJournal } from '../support/dynamodb.js';

type Authorizer = Record<string, unknown> | undefined;

/** A REST (v1) event, with the authorizer (or IAM identity) given. */
function restEvent(key: string, authorizer: Authorizer, identity: Record<string, unknown> = {}) {
  return {
    resource: '/payments',
    path: '/payments',
    httpMethod: 'POST',
    headers: { 'Content-Type': 'application/json', 'Idempotency-Key': key },
    multiValueHeaders: { 'Content-Type': ['application/json'], 'Idempotency-Key': [key] },
    queryStringParameters: null,
    multiValueQueryStringParameters: null,
    requestContext: { authorizer, identity },
    body: '{"amount":5}',
    isBase64Encoded: false,
  };
}

/** An HTTP API (v2) event; `routeKey: '$default'` makes it a Function URL event. */
function v2Event(key: string, authorizer: Authorizer, routeKey = 'POST /payments') {
  return {
    version: '2.0',
    routeKey,
    rawPath: '/payments',
    rawQueryString: '',
    headers: { 'content-type': 'application/json', 'idempotency-key': key },
    requestContext: { http: { method: 'POST', path: '/payments' }, ...(authorizer ? { authorizer } : {}) },
    body: '{"amount":5}',
    isBase64Encoded: false,
  };
}

/** Every place a tenant is read from, as an event whose tenant there is `tenant`. */
const TENANT_SOURCES: Array<[string, (key: string, tenant: unknown) => object]> = [
  ['HTTP API JWT claims.sub', (key, tenant) => v2Event(key, { jwt: { claims: { sub: tenant }, scopes: [] } })],
  ['HTTP API Lambda authorizer lambda.tenantId', (key, tenant) => v2Event(key, { lambda: { tenantId: tenant } })],
  ['HTTP API Lambda authorizer lambda.principalId', (key, tenant) => v2Event(key, { lambda: { principalId: tenant } })],
  ['HTTP API principalId', (key, tenant) => v2Event(key, { principalId: tenant })],
  ['HTTP API IAM userArn', (key, tenant) => v2Event(key, { iam: { userArn: tenant } })],
  ['Function URL IAM userArn', (key, tenant) => v2Event(key, { iam: { userArn: tenant } }, '$default')],
  ['REST Lambda authorizer principalId', (key, tenant) => restEvent(key, { principalId: tenant })],
  ['REST Cognito claims.sub', (key, tenant) => restEvent(key, { claims: { sub: tenant } })],
  ['REST IAM userArn', (key, tenant) => restEvent(key, undefined, { userArn: tenant })],
];

async function guardedCounter() {
  const { journal } = await dynamoJournal();
  let runs = 0;
  const handler = middy(async () => ({
    statusCode: 201,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ run: ++runs }),
  })).use(httpIdempotency({ journal }));
  const send = (event: object) =>
    handler(event as never, lambdaContext()) as Promise<{
      statusCode: number;
      headers?: Record<string, string>;
      body: string;
    }>;
  return { journal, send, runs: () => runs };
}

describe('httpIdempotency tenant scope', () => {
  it.each(TENANT_SOURCES)(
    'keeps two numeric tenants apart when the tenant comes from the %s',
    async (_source, eventFor) => {
      const { journal, send, runs } = await guardedCounter();

      const first = await send(eventFor('shared-key', 4217));
      const second = await send(eventFor('shared-key', 4218));

      expect(first.statusCode).toBe(201);
      expect(second.statusCode).toBe(201);
      expect(second.headers?.['Idempotent-Replayed']).toBeUndefined();
      expect(runs()).toBe(2);
      expect(await journal.get('req#4217#POST /payments#shared-key')).toBeDefined();
      expect(await journal.get('req#4218#POST /payments#shared-key')).toBeDefined();
    },
  );

  it.each(TENANT_SOURCES)('scopes a numeric tenant from the %s as its decimal string', async (_source, eventFor) => {
    const { send, runs } = await guardedCounter();

    await send(eventFor('decimal-key', 4217));
    const replay = await send(eventFor('decimal-key', '4217'));

    expect(replay.headers?.['Idempotent-Replayed']).toBe('true');
    expect(runs()).toBe(1);
  });

  it.each([
    ['an empty string', ''],
    ['a boolean', true],
    ['an object', { id: 1 }],
    ['NaN', Number.NaN],
  ])(
    'refuses a tenant that is %s with 400 invalid-request, without running the handler or writing a record',
    async (_label, tenant) => {
      const { journal, send, runs } = await guardedCounter();

      const answers = await Promise.all(TENANT_SOURCES.map(([, eventFor]) => send(eventFor('odd-key', tenant))));

      for (const answer of answers) {
        expect(answer.statusCode).toBe(400);
        expect(JSON.parse(answer.body).type).toBe('urn:idemkit:problem:invalid-request');
      }
      expect(runs()).toBe(0);
      expect(await journal.get('req#-#POST /payments#odd-key')).toBeUndefined();
    },
  );

  it('reads the next source when a Lambda authorizer sets tenantId to null', async () => {
    const { journal, send } = await guardedCounter();

    await send(v2Event('null-key', { lambda: { tenantId: null, principalId: 'user-7' } }));

    expect(await journal.get('req#user-7#POST /payments#null-key')).toBeDefined();
  });

  it("scopes a caller with no authorizer as '-'", async () => {
    const { journal, send } = await guardedCounter();

    await send(v2Event('anonymous-key', undefined));

    expect(await journal.get('req#-#POST /payments#anonymous-key')).toBeDefined();
  });

  it('reads a number returned by a tenant option as its decimal string and refuses an empty one', async () => {
    const { journal } = await dynamoJournal();
    let runs = 0;
    const guarded = (tenant: unknown) =>
      middy(async () => ({ statusCode: 201, body: String(++runs) })).use(
        httpIdempotency({ journal, tenant: () => tenant as string }),
      );

    await guarded(4217)(v2Event('option-key', undefined) as never, lambdaContext());
    const empty = await guarded('')(v2Event('option-key-2', undefined) as never, lambdaContext());

    expect(await journal.get('req#4217#POST /payments#option-key')).toBeDefined();
    expect(empty.statusCode).toBe(400);
    expect(runs).toBe(1);
  });
});

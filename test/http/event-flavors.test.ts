import middy from '@middy/core';
import { MemoryJournal, httpIdempotency } from '../../src/index.js';
import { lambdaContext } from '../support/lambda.js';

function counted(multiValue = false) {
  let runs = 0;
  const handler = middy(async (): Promise<any> => {
    const body = JSON.stringify({ run: ++runs });
    return multiValue
      ? {
          statusCode: 201,
          statusDescription: '201 Created',
          multiValueHeaders: { 'content-type': ['application/json'] },
          body,
        }
      : { statusCode: 201, headers: { 'content-type': 'application/json' }, body };
  });
  return { handler, runs: () => runs };
}

const restEvent = (key: string, amount: number, principalId?: string) => ({
  resource: '/payments/{id}/refunds',
  path: '/payments/pay_1/refunds',
  httpMethod: 'POST',
  headers: { 'Content-Type': 'application/json', 'Idempotency-Key': key },
  multiValueHeaders: { 'Content-Type': ['application/json'], 'Idempotency-Key': [key] },
  queryStringParameters: null,
  multiValueQueryStringParameters: null,
  pathParameters: { id: 'pay_1' },
  requestContext: { authorizer: principalId ? { principalId } : undefined, identity: {} },
  body: JSON.stringify({ amount }),
  isBase64Encoded: false,
});

const albEvent = (key: string | string[], amount: number) => ({
  httpMethod: 'POST',
  path: '/payments',
  multiValueQueryStringParameters: {},
  multiValueHeaders: { 'content-type': ['application/json'], 'idempotency-key': Array.isArray(key) ? key : [key] },
  requestContext: { elb: { targetGroupArn: 'arn:aws:elasticloadbalancing:us-east-1:123456789012:targetgroup/tg/1' } },
  body: JSON.stringify({ amount }),
  isBase64Encoded: false,
});

describe('httpIdempotency across event flavors', () => {
  it('guards an API Gateway REST (v1) event, scoped by its route template and authorizer principal', async () => {
    const journal = new MemoryJournal();
    const { handler, runs } = counted();
    const guarded = handler.use(httpIdempotency({ journal }));
    await guarded(restEvent('rest-1', 5, 'alice') as never, lambdaContext());
    const replay = await guarded(restEvent('rest-1', 5, 'alice') as never, lambdaContext());
    await guarded(restEvent('rest-1', 5, 'bob') as never, lambdaContext());
    expect(replay.headers['Idempotent-Replayed']).toBe('true');
    expect(runs()).toBe(2);
    expect(await journal.get('req#alice#POST /payments/{id}/refunds#rest-1')).toBeDefined();
  });

  it('answers a multi-value ALB event with multi-value headers on replay and refuses two different keys', async () => {
    const journal = new MemoryJournal();
    const { handler, runs } = counted(true);
    const guarded = handler.use(httpIdempotency({ journal }));
    await guarded(albEvent('alb-1', 5) as never, lambdaContext());
    const replay = await guarded(albEvent('alb-1', 5) as never, lambdaContext());
    const twoKeys = await guarded(albEvent(['a', 'b'], 5) as never, lambdaContext());
    expect(replay).toMatchObject({
      statusCode: 201,
      statusDescription: '201 Created',
      multiValueHeaders: { 'content-type': ['application/json'], 'Idempotent-Replayed': ['true'] },
    });
    expect(replay.headers).toBeUndefined();
    expect(twoKeys).toMatchObject({
      statusCode: 400,
      statusDescription: '400',
      multiValueHeaders: { 'content-type': ['application/problem+json'] },
    });
    expect(runs()).toBe(1);
  });

  it('guards a Lambda Function URL event (payload 2.0 with routeKey $default) by its concrete path', async () => {
    const journal = new MemoryJournal();
    const { handler, runs } = counted();
    const guarded = handler.use(httpIdempotency({ journal }));
    const event = (path: string) => ({
      version: '2.0',
      routeKey: '$default',
      rawPath: path,
      rawQueryString: '',
      headers: { 'idempotency-key': 'url-1', 'content-type': 'application/json' },
      requestContext: { http: { method: 'POST', path } },
      body: '{"amount":5}',
      isBase64Encoded: false,
    });
    await guarded(event('/payments') as never, lambdaContext());
    await guarded(event('/refunds') as never, lambdaContext());
    expect(runs()).toBe(2);
    expect(await journal.get('req#-#POST /payments#url-1')).toBeDefined();
  });
});

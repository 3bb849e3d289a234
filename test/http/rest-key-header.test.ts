import middy from '@middy/core';
import { httpIdempotency } from '../../src/index.js';
import { lambdaContext } from '../support/lambda.js';
import { dynamoJournal } from '../support/dynamodb.js';

/** A REST (v1) event with the given header maps, as API Gateway delivers them. */
function restEvent(headers: Record<string, string>, multiValueHeaders: Record<string, string[]>) {
  return {
    resource: '/payments',
    path: '/payments',
    httpMethod: 'POST',
    headers: { 'Content-Type': 'application/json', ...headers },
    multiValueHeaders: { 'Content-Type': ['application/json'], ...multiValueHeaders },
    queryStringParameters: null,
    multiValueQueryStringParameters: null,
    requestContext: { identity: {} },
    body: '{"amount":5}',
    isBase64Encoded: false,
  };
}

describe('httpIdempotency on a REST (v1) event carrying the key under two spellings', () => {
  async function guarded() {
    const { journal } = await dynamoJournal();
    let runs = 0;
    const handler = middy(async () => ({ statusCode: 201, body: JSON.stringify({ run: ++runs }) })).use(
      httpIdempotency({ journal }),
    );
    const send = (event: object) =>
      handler(event as never, lambdaContext()) as Promise<{ statusCode: number; body: string }>;
    return { journal, send, runs: () => runs };
  }

  it.each([
    [
      'both maps',
      { 'Idempotency-Key': 'key-one', 'idempotency-key': 'key-two' },
      { 'Idempotency-Key': ['key-one'], 'idempotency-key': ['key-two'] },
    ],
    ['the multi-value map only', {}, { 'Idempotency-Key': ['key-one'], 'idempotency-key': ['key-two'] }],
    ['one spelling in each map', { 'idempotency-key': 'key-two' }, { 'Idempotency-Key': ['key-one'] }],
  ])(
    'answers 400 idempotency-key-invalid to two different values in %s, without running the handler',
    async (_label, headers, multiValueHeaders) => {
      const { journal, send, runs } = await guarded();

      const answer = await send(restEvent(headers, multiValueHeaders));

      expect(answer.statusCode).toBe(400);
      expect(JSON.parse(answer.body).type).toBe('urn:idemkit:problem:idempotency-key-invalid');
      expect(runs()).toBe(0);
      expect(await journal.get('req#-#POST /payments#key-one')).toBeUndefined();
      expect(await journal.get('req#-#POST /payments#key-two')).toBeUndefined();
    },
  );

  it('accepts one key sent under two spellings with the same value', async () => {
    const { journal, send, runs } = await guarded();

    const answer = await send(
      restEvent(
        { 'Idempotency-Key': 'same', 'idempotency-key': 'same' },
        { 'Idempotency-Key': ['same'], 'idempotency-key': ['same'] },
      ),
    );

    expect(answer.statusCode).toBe(201);
    expect(runs()).toBe(1);
    expect(await journal.get('req#-#POST /payments#same')).toBeDefined();
  });
});

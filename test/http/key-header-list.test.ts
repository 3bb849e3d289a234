import middy from '@middy/core';
import { httpIdempotency } from '../../src/index.js';
import { lambdaContext, httpEvent } from '../support/lambda.js';
import { dynamoJournal } from '../support/dynamodb.js';

/**
 * A bare key is one token. HTTP API v2 joins two `Idempotency-Key` header lines with a comma
 * (`a,b`), so a bare value holding a comma is two keys and is refused; a quoted string may hold one.
 */
describe('httpIdempotency reading a key header that holds a comma', () => {
  async function guarded() {
    const { journal } = await dynamoJournal();
    let runs = 0;
    const handler = middy(async () => ({ statusCode: 201, body: JSON.stringify({ run: ++runs }) })).use(
      httpIdempotency({ journal }),
    );
    const send = (key: string) =>
      handler(httpEvent({ key, body: { amount: 5 } }) as never, lambdaContext()) as Promise<{
        statusCode: number;
        body: string;
      }>;
    return { journal, send, runs: () => runs };
  }

  it.each([
    ['two header lines joined by HTTP API v2', 'key-one,key-two'],
    ['two header lines joined with a space', 'key-one, key-two'],
    ['a bare key holding a comma', 'order,42'],
    ['a quoted key followed by another', '"key-one", "key-two"'],
    ['a trailing comma', 'key-one,'],
  ])('answers 400 idempotency-key-invalid to %s, without running the handler or writing', async (_label, value) => {
    const { journal, send, runs } = await guarded();

    const answer = await send(value);

    expect(answer.statusCode).toBe(400);
    const problem = JSON.parse(answer.body);
    expect(problem.type).toBe('urn:idemkit:problem:idempotency-key-invalid');
    expect(runs()).toBe(0);
    for (const part of value.split(',')) {
      const key = part.trim().replace(/^"|"$/g, '');
      if (key) expect(await journal.get(`req#-#POST /payments#${key}`)).toBeUndefined();
    }
    expect(await journal.get(`req#-#POST /payments#${value}`)).toBeUndefined();
  });

  it('takes a quoted key holding a comma as one key, and replays it', async () => {
    const { journal, send, runs } = await guarded();

    const first = await send('"order,42"');
    const retry = await send('"order,42"');

    expect(first.statusCode).toBe(201);
    expect(retry.statusCode).toBe(201);
    expect(retry.body).toBe(first.body);
    expect(runs()).toBe(1);
    expect(await journal.get('req#-#POST /payments#order,42')).toMatchObject({ status: 'COMPLETED' });
  });
});

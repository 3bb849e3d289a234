import {
  idempotencyOf,
  InvalidOptionsError,
  MemoryJournal,
  MemoryOutcomeCache,
  httpIdempotency,
} from '../../src/index.js';
import { httpEvent } from '../support/lambda.js';
import { countingHandler, guard } from './guarded-handler.js';

const problemType = (answer: { body: string }) => JSON.parse(answer.body).type as string;

describe('httpIdempotency with bad input', () => {
  const journal = new MemoryJournal();
  const { calls, handler } = countingHandler();
  const guarded = guard(handler, journal);
  beforeEach(() => (calls.length = 0));

  it.each([
    ['missing', undefined, 'idempotency-key-missing'],
    ['empty', '', 'idempotency-key-invalid'],
    ['blank', '   ', 'idempotency-key-invalid'],
    ['oversized', 'k'.repeat(256), 'idempotency-key-invalid'],
    ['non-ASCII', 'clé-1', 'idempotency-key-invalid'],
    ['with a space', 'a b', 'idempotency-key-invalid'],
    ['a broken quoted string', '"abc', 'idempotency-key-invalid'],
  ])('answers 400 to a %s key without running the handler', async (_label, key, type) => {
    const answer = await guarded(httpEvent({ key, body: { a: 1 } }));
    expect(answer.statusCode).toBe(400);
    expect(answer.headers['content-type']).toBe('application/problem+json');
    expect(problemType(answer)).toBe(`urn:idemkit:problem:${type}`);
    expect(calls).toHaveLength(0);
  });

  it('treats a quoted key and a bare key as the same key', async () => {
    await guarded(httpEvent({ key: 'abc-quoted', body: { a: 1 } }));
    const replay = await guarded(httpEvent({ key: '"abc-quoted"', body: { a: 1 } }));
    expect(replay.headers['Idempotent-Replayed']).toBe('true');
    expect(calls).toHaveLength(1);
  });

  it('reads the key header case-insensitively', async () => {
    await guarded(httpEvent({ headers: { 'IDEMPOTENCY-KEY': 'upper-1' }, body: { a: 1 } }));
    const replay = await guarded(httpEvent({ key: 'upper-1', body: { a: 1 } }));
    expect(replay.headers['Idempotent-Replayed']).toBe('true');
  });

  it('accepts a 255-character key', async () => {
    const answer = await guarded(httpEvent({ key: 'k'.repeat(255), body: { a: 1 } }));
    expect(answer.statusCode).toBe(201);
  });

  it('guards a non-JSON body by its bytes', async () => {
    await guarded(httpEvent({ key: 'text-1', rawBody: 'amount=10' }));
    const same = await guarded(httpEvent({ key: 'text-1', rawBody: 'amount=10' }));
    const other = await guarded(httpEvent({ key: 'text-1', rawBody: 'amount=11' }));
    expect(same.headers['Idempotent-Replayed']).toBe('true');
    expect(other.statusCode).toBe(422);
    expect(calls).toHaveLength(1);
  });

  it('decodes a base64 body before comparing it', async () => {
    const json = JSON.stringify({ amount: 5 });
    await guarded(httpEvent({ key: 'b64-1', rawBody: Buffer.from(json).toString('base64'), isBase64Encoded: true }));
    const plain = await guarded(httpEvent({ key: 'b64-1', rawBody: json }));
    expect(plain.headers['Idempotent-Replayed']).toBe('true');
  });

  it('refuses a body with duplicate JSON keys with a 400 problem', async () => {
    const answer = await guarded(httpEvent({ key: 'dup-1', rawBody: '{"amount":1,"amount":1000}' }));
    expect(answer.statusCode).toBe(400);
    expect(problemType(answer)).toBe('urn:idemkit:problem:invalid-request');
    expect(calls).toHaveLength(0);
  });

  it('refuses a deeply nested body with a 400 problem', async () => {
    const deep = '['.repeat(5000) + ']'.repeat(5000);
    const answer = await guarded(httpEvent({ key: 'deep-1', rawBody: deep }));
    expect(answer.statusCode).toBe(400);
    expect(calls).toHaveLength(0);
  });

  it('tells apart numbers a double would round to the same value', async () => {
    await guarded(httpEvent({ key: 'big-1', rawBody: '{"amount":9007199254740993}' }));
    const other = await guarded(httpEvent({ key: 'big-1', rawBody: '{"amount":9007199254740992}' }));
    expect(other.statusCode).toBe(422);
  });

  it('answers 400 to an event that is not HTTP', async () => {
    const answer = await guard(handler, journal)({ Records: [] } as never);
    expect(answer.statusCode).toBe(400);
    expect(problemType(answer)).toBe('urn:idemkit:problem:invalid-request');
    expect(calls).toHaveLength(0);
  });

  it('lets a GET without a key through unguarded', async () => {
    const answer = await guarded(httpEvent({ method: 'GET', path: '/payments/1' }));
    expect(answer.statusCode).toBe(201);
    expect(calls).toHaveLength(1);
  });

  it('never stores set-cookie or headers outside the allow-list', async () => {
    await guarded(httpEvent({ key: 'cookie-1', body: {} }));
    const replay = await guarded(httpEvent({ key: 'cookie-1', body: {} }));
    expect(replay.headers['set-cookie']).toBeUndefined();
    expect(replay.headers['x-other']).toBeUndefined();
    const withOther = guard(handler, journal, { replayHeaders: ['X-Other', 'Set-Cookie'] });
    await withOther(httpEvent({ key: 'cookie-2', body: {} }));
    const replay2 = await withOther(httpEvent({ key: 'cookie-2', body: {} }));
    expect(replay2.headers['x-other']).toBe('1');
    expect(replay2.headers['set-cookie']).toBeUndefined();
  });
});

describe('httpIdempotency options', () => {
  it('throws on an unknown option and names it', () => {
    expect(() => httpIdempotency({ journal: new MemoryJournal(), ttlSecond: 5 } as never)).toThrow(/'ttlSecond'/);
  });

  it.each([
    [{ ttlSeconds: 0 }],
    [{ leaseMs: -1 }],
    [{ inProgress: 'queue' }],
    [{ waitMs: Number.NaN }],
    [{ localCache: { maxItems: 0 } }],
    [{ outcomeCache: { get: async () => undefined } }],
    [{ outcomeCache: { get: async () => undefined, set: async () => undefined, timeoutMs: 0 } }],
    [{ outcomeCache: new MemoryOutcomeCache({ maxItems: 10 }), localCache: { maxItems: 10 } }],
    [{ replayHeaders: 'location' }],
    [{ required: 'yes' }],
    [{ streamifyResponse: 'yes' }],
    [{ metrics: {} }],
    [{ logger: { info: () => undefined } }],
    [{ statusCodes: { mismatched: 409 } }],
    [{ statusCodes: { mismatch: 99 } }],
    [{ statusCodes: { inProgress: '409' } }],
    [{ retryAfterSeconds: 1.5 }],
    [{ retryAfterSeconds: -1 }],
  ])('rejects %j when the middleware is created', (bad) => {
    expect(() => httpIdempotency({ journal: new MemoryJournal(), ...(bad as object) })).toThrow(InvalidOptionsError);
  });

  it('answers with the status codes it was given', async () => {
    const guarded = guard(countingHandler().handler, new MemoryJournal(), {
      statusCodes: { mismatch: 409, missingKey: 428 },
    });
    await guarded(httpEvent({ key: 'status-1', body: { a: 1 } }));
    const mismatch = await guarded(httpEvent({ key: 'status-1', body: { a: 2 } }));
    expect([mismatch.statusCode, problemType(mismatch)]).toEqual([409, 'urn:idemkit:problem:idempotency-key-reused']);
    const missing = await guarded(httpEvent({ body: { a: 1 } }));
    expect([missing.statusCode, problemType(missing)]).toEqual([428, 'urn:idemkit:problem:idempotency-key-missing']);
  });

  it('answers a write conflict and a uniqueness conflict with the status codes it was given, with no Retry-After', async () => {
    const journal = new MemoryJournal({ tableKeys: { stock: ['sku'] } });
    const handler = async (event: { body?: string }, context?: object) => {
      const { rule } = JSON.parse(event.body ?? '{}') as { rule: string };
      const scope = idempotencyOf(context as object);
      if (rule === 'claim') scope.claimUnique('order', 'o-1');
      else
        scope.stage({
          Put: { TableName: 'stock', Item: { sku: 'mug' }, ConditionExpression: 'attribute_not_exists(sku)' },
        });
      return { statusCode: 201, body: '{}' };
    };
    const guarded = guard(handler, journal, { statusCodes: { writeConflict: 412, uniqueConflict: 423 } });
    await guarded(httpEvent({ key: 'first-claim', body: { rule: 'claim' } }));
    await guarded(httpEvent({ key: 'first-write', body: { rule: 'write' } }));

    const claim = await guarded(httpEvent({ key: 'second-claim', body: { rule: 'claim' } }));
    const write = await guarded(httpEvent({ key: 'second-write', body: { rule: 'write' } }));

    expect([claim.statusCode, problemType(claim)]).toEqual([423, 'urn:idemkit:problem:uniqueness-conflict']);
    expect([write.statusCode, problemType(write)]).toEqual([412, 'urn:idemkit:problem:write-conflict']);
    expect(claim.headers['retry-after']).toBeUndefined();
    expect(write.headers['retry-after']).toBeUndefined();
  });

  it('sends the whole-second Retry-After it was given with an in-progress answer', async () => {
    const journal = new MemoryJournal();
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const slow = guard(
      async () => {
        await gate;
        return { statusCode: 201, body: '{}' };
      },
      journal,
      { retryAfterSeconds: 7, statusCodes: { inProgress: 429 } },
    );
    const first = slow(httpEvent({ key: 'busy', body: { a: 1 } }));
    await new Promise((resolve) => setImmediate(resolve));

    const busy = await slow(httpEvent({ key: 'busy', body: { a: 1 } }));
    release();
    await first;

    expect([busy.statusCode, busy.headers['retry-after']]).toEqual([429, '7']);
  });

  it('rejects a missing journal', () => {
    expect(() => httpIdempotency({} as never)).toThrow(/journal/);
  });
});

import { isRetryableByDefault } from '../../src/client/index.js';
import { InProgressError, JournalUnavailableError, PayloadMismatchError } from '../../src/core/index.js';

function problem(status: number, type: string, contentType = 'application/problem+json'): Response {
  return new Response(JSON.stringify({ type, title: 'x', status }), {
    status,
    headers: { 'content-type': contentType },
  });
}

describe('isRetryableByDefault', () => {
  it.each([408, 429, 502, 503, 504])('retries HTTP %i', async (status) => {
    await expect(isRetryableByDefault(new Response(null, { status }))).resolves.toBe(true);
  });

  it.each([200, 201, 400, 401, 403, 404, 409, 410, 422, 500])('does not retry HTTP %i', async (status) => {
    await expect(isRetryableByDefault(new Response(null, { status }))).resolves.toBe(false);
  });

  it('retries a 409 whose problem type ends in request-in-progress', async () => {
    const response = problem(409, 'urn:idemkit:problem:request-in-progress', 'application/problem+json; charset=utf-8');

    await expect(isRetryableByDefault(response)).resolves.toBe(true);
  });

  it.each(['urn:idemkit:problem:needs-review', 'urn:idemkit:problem:uniqueness-conflict'])(
    'does not retry a 409 of type %s',
    async (type) => {
      await expect(isRetryableByDefault(problem(409, type))).resolves.toBe(false);
    },
  );

  it('does not retry a 409 that is not a problem document', async () => {
    const response = problem(409, 'urn:idemkit:problem:request-in-progress', 'text/plain');

    await expect(isRetryableByDefault(response)).resolves.toBe(false);
  });

  it('leaves the body of a classified 409 readable', async () => {
    const response = problem(409, 'urn:idemkit:problem:request-in-progress');

    await isRetryableByDefault(response);

    await expect(response.json()).resolves.toMatchObject({ status: 409 });
  });

  it.each([
    [
      'a fetch network failure',
      new TypeError('fetch failed', { cause: Object.assign(new Error('read'), { code: 'ECONNRESET' }) }),
    ],
    ['a browser network failure', new TypeError('Failed to fetch')],
    ['a socket error code', Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' })],
    ['a timeout', new DOMException('The operation timed out', 'TimeoutError')],
    ['an in-progress error', new InProgressError(1)],
    ['an unreachable journal', new JournalUnavailableError('down')],
  ])('retries %s', async (_name, error) => {
    await expect(isRetryableByDefault(error)).resolves.toBe(true);
  });

  it.each([
    ['a programming TypeError', new TypeError('x is not a function')],
    ['a plain error', new Error('boom')],
    ['an abort', new DOMException('aborted', 'AbortError')],
    ['a payload mismatch', new PayloadMismatchError()],
    ['a non-error value', { ok: true }],
  ])('does not retry %s', async (_name, outcome) => {
    await expect(isRetryableByDefault(outcome)).resolves.toBe(false);
  });
});

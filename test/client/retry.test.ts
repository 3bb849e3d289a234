import { retry, RetryBudget, type RetryContext } from '../../src/client/index.js';
import { InvalidOptionsError } from '../../src/core/index.js';
import { fakeTime } from './fake-time.js';

const unavailable = (headers: Record<string, string> = {}): Response => new Response(null, { status: 503, headers });
const created = (): Response => new Response(null, { status: 201 });

/** A call that answers with `outcomes` in order (an Error is thrown), then keeps answering the last one. */
function scripted(...outcomes: (Response | Error)[]): jest.Mock<Promise<Response>, [number]> {
  return jest.fn(async (attempt: number) => {
    const outcome = outcomes[Math.min(attempt, outcomes.length) - 1]!;
    if (outcome instanceof Error) throw outcome;
    return outcome;
  });
}

describe('retry', () => {
  it('returns a first success without retrying', async () => {
    const time = fakeTime();
    const fn = scripted(created());

    const response = await retry(fn, { sleep: time.sleep, clock: time.clock });

    expect(response.status).toBe(201);
    expect(fn).toHaveBeenCalledTimes(1);
  });

  it('retries a retryable response and returns the later success', async () => {
    const time = fakeTime();
    const fn = scripted(unavailable(), unavailable(), created());

    const response = await retry(fn, { sleep: time.sleep, clock: time.clock });

    expect(response.status).toBe(201);
    expect(fn.mock.calls.map(([attempt]) => attempt)).toEqual([1, 2, 3]);
  });

  it('returns the last result when the attempts run out', async () => {
    const time = fakeTime();
    const last = unavailable();
    const fn = scripted(unavailable(), unavailable(), last);

    const response = await retry(fn, { maxAttempts: 3, sleep: time.sleep, clock: time.clock });

    expect(response).toBe(last);
    expect(fn).toHaveBeenCalledTimes(3);
  });

  it('throws the last error when the attempts run out', async () => {
    const time = fakeTime();
    const last = new TypeError('fetch failed');
    const fn = scripted(new TypeError('fetch failed'), last);

    const call = retry(fn, { maxAttempts: 2, sleep: time.sleep, clock: time.clock });

    await expect(call).rejects.toBe(last);
  });

  it('returns a non-retryable outcome at once', async () => {
    const time = fakeTime();
    const fn = scripted(new Response(null, { status: 422 }), created());

    const response = await retry(fn, { sleep: time.sleep, clock: time.clock });

    expect(response.status).toBe(422);
    expect(fn).toHaveBeenCalledTimes(1);
  });

  it('asks isRetryable about each outcome with its attempt number', async () => {
    const time = fakeTime();
    const isRetryable = jest.fn((outcome: unknown) => outcome === 'busy');
    let calls = 0;

    const result = await retry(async () => (++calls < 3 ? 'busy' : 'done'), {
      isRetryable,
      sleep: time.sleep,
      clock: time.clock,
    });

    expect(result).toBe('done');
    expect(isRetryable.mock.calls).toEqual([
      ['busy', 1],
      ['busy', 2],
      ['done', 3],
    ]);
  });

  it('waits full-jitter backoff whose cap doubles per retry', async () => {
    const time = fakeTime();
    const fn = scripted(unavailable());

    await retry(fn, {
      maxAttempts: 5,
      baseDelayMs: 100,
      random: () => 0.999_999,
      sleep: time.sleep,
      clock: time.clock,
    });

    expect(time.delaysMs).toEqual([100, 200, 400, 800]);
  });

  it('honours Retry-After given in delta-seconds', async () => {
    const time = fakeTime();
    const fn = scripted(unavailable({ 'Retry-After': '2' }), created());

    await retry(fn, { random: () => 0, sleep: time.sleep, clock: time.clock });

    expect(time.delaysMs).toEqual([2_000]);
  });

  it('honours Retry-After given as an HTTP-date', async () => {
    const time = fakeTime();
    const retryAt = new Date(time.clock() + 3_000).toUTCString();
    const fn = scripted(unavailable({ 'Retry-After': retryAt }), created());

    await retry(fn, { random: () => 0, sleep: time.sleep, clock: time.clock });

    expect(time.delaysMs).toEqual([3_000]);
  });

  it('stops when Retry-After exceeds maxRetryAfterMs and returns that response', async () => {
    const time = fakeTime();
    const fn = scripted(unavailable({ 'Retry-After': '60' }), created());

    const response = await retry(fn, { maxRetryAfterMs: 10_000, sleep: time.sleep, clock: time.clock });

    expect(response.status).toBe(503);
    expect(fn).toHaveBeenCalledTimes(1);
  });

  it('starts no attempt at or after the deadline', async () => {
    const time = fakeTime();
    const startedAtMs: number[] = [];
    const fn = async (): Promise<Response> => {
      startedAtMs.push(time.clock());
      time.advance(400);
      return unavailable();
    };

    await retry(fn, { maxAttempts: 100, baseDelayMs: 100, deadlineMs: 2_000, sleep: time.sleep, clock: time.clock });

    expect(startedAtMs.length).toBeGreaterThan(1);
    expect(startedAtMs.length).toBeLessThan(100);
    expect(Math.max(...startedAtMs) - startedAtMs[0]!).toBeLessThan(2_000);
  });

  it('stops when a Retry-After would end past the deadline', async () => {
    const time = fakeTime();
    const fn = scripted(unavailable({ 'Retry-After': '5' }), created());

    const response = await retry(fn, {
      deadlineMs: 2_000,
      maxRetryAfterMs: 60_000,
      sleep: time.sleep,
      clock: time.clock,
    });

    expect(response.status).toBe(503);
    expect(fn).toHaveBeenCalledTimes(1);
  });

  it('keeps the retries of many calls within the shared budget', async () => {
    const time = fakeTime();
    const budget = new RetryBudget({ ratio: 0.2, minPerSecond: 0, clock: time.clock });
    const fn = scripted(unavailable());

    for (let call = 0; call < 10; call++) {
      await retry(fn, { maxAttempts: 10, budget, sleep: async () => undefined, clock: time.clock });
    }

    expect(fn).toHaveBeenCalledTimes(10 + 2);
  });

  it('hands onRetry a frozen context before each wait', async () => {
    const time = fakeTime();
    const contexts: RetryContext[] = [];
    const failure = unavailable();

    await retry(scripted(failure, created()), {
      random: () => 0.5,
      onRetry: (c) => void contexts.push(c),
      sleep: time.sleep,
      clock: time.clock,
    });

    expect(contexts).toEqual([{ attempt: 1, delayMs: 50, elapsedMs: 0, errorOrResult: failure }]);
    expect(Object.isFrozen(contexts[0])).toBe(true);
  });
});

describe('retry with an AbortSignal', () => {
  it('rejects with the reason as soon as the signal aborts during a wait', async () => {
    const controller = new AbortController();
    const reason = new Error('user left the page');
    const fn = jest.fn(async () => {
      setTimeout(() => controller.abort(reason), 10);
      return unavailable();
    });
    const startedAtMs = Date.now();

    const call = retry(fn, {
      baseDelayMs: 60_000,
      maxDelayMs: 60_000,
      deadlineMs: Infinity,
      random: () => 0.999,
      signal: controller.signal,
    });

    await expect(call).rejects.toBe(reason);
    expect(Date.now() - startedAtMs).toBeLessThan(5_000);
    expect(fn).toHaveBeenCalledTimes(1);
  });

  it('rejects with the reason while an attempt is still running', async () => {
    const controller = new AbortController();
    const reason = new Error('cancelled');
    const never = new Promise<Response>(() => undefined);

    const call = retry(() => never, { signal: controller.signal });
    controller.abort(reason);

    await expect(call).rejects.toBe(reason);
  });

  it('makes no attempt when the signal is already aborted', async () => {
    const controller = new AbortController();
    controller.abort(new Error('too late'));
    const fn = jest.fn(async () => created());

    await expect(retry(fn, { signal: controller.signal })).rejects.toThrow('too late');
    expect(fn).not.toHaveBeenCalled();
  });
});

describe('retry options', () => {
  it.each([
    [{ maxAttempt: 3 }, "'maxAttempt'"],
    [{ maxAttempts: 0 }, "'maxAttempts'"],
    [{ maxAttempts: 2.5 }, "'maxAttempts'"],
    [{ baseDelayMs: -1 }, "'baseDelayMs'"],
    [{ maxDelayMs: Number.NaN }, "'maxDelayMs'"],
    [{ deadlineMs: -5 }, "'deadlineMs'"],
    [{ deadlineMs: Number.NaN }, "'deadlineMs'"],
    [{ maxRetryAfterMs: '1000' }, "'maxRetryAfterMs'"],
    [{ baseDelayMs: 500, maxDelayMs: 100 }, "'maxDelayMs'"],
    [{ budget: { ratio: 0.1 } }, "'budget'"],
    [{ signal: 'abort' }, "'signal'"],
    [{ random: 0.5 }, "'random'"],
  ])('refuses %p before the first attempt, naming the option', async (options, name) => {
    const fn = jest.fn(async () => created());

    const call = retry(fn, options as never);

    await expect(call).rejects.toThrow(InvalidOptionsError);
    await expect(call).rejects.toThrow(name);
    expect(fn).not.toHaveBeenCalled();
  });
});

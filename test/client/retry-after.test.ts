import { parseRetryAfterMs, retryAfterMsOf } from '../../src/client/retryable.js';
import { InProgressError, JournalThrottledError } from '../../src/core/index.js';

const NOW_MS = Date.UTC(2025, 0, 1, 12, 0, 0);

describe('parseRetryAfterMs', () => {
  it('reads delta-seconds', () => {
    expect(parseRetryAfterMs('3', NOW_MS)).toBe(3_000);
  });

  it('reads an HTTP-date as the time left until it', () => {
    const header = new Date(NOW_MS + 5_000).toUTCString();

    expect(parseRetryAfterMs(header, NOW_MS)).toBe(5_000);
  });

  it('reads an HTTP-date in the past as no wait', () => {
    const header = new Date(NOW_MS - 60_000).toUTCString();

    expect(parseRetryAfterMs(header, NOW_MS)).toBe(0);
  });

  it.each(['-1', '1.5', 'soon', '', '   '])('ignores the malformed value %p', (header) => {
    expect(parseRetryAfterMs(header, NOW_MS)).toBeUndefined();
  });

  it('ignores a missing header', () => {
    expect(parseRetryAfterMs(null, NOW_MS)).toBeUndefined();
  });
});

describe('retryAfterMsOf', () => {
  it('reads the Retry-After header of a response', () => {
    const response = new Response(null, { status: 503, headers: { 'Retry-After': '2' } });

    expect(retryAfterMsOf(response, NOW_MS)).toBe(2_000);
  });

  it('reads the wait carried by an InProgressError', () => {
    expect(retryAfterMsOf(new InProgressError(4), NOW_MS)).toBe(4_000);
  });

  it('reads the jittered wait carried by a JournalThrottledError', () => {
    const throttled = new JournalThrottledError(['TableWriteKeyRangeThroughputExceeded'], 'throttled', {
      retryAfterSeconds: 3,
    });

    expect(retryAfterMsOf(throttled, NOW_MS)).toBe(3_000);
  });

  it('finds nothing on a plain error', () => {
    expect(retryAfterMsOf(new Error('boom'), NOW_MS)).toBeUndefined();
  });
});

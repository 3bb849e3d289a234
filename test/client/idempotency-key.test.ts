import { newIdempotencyKey } from '../../src/client/index.js';
import { assertValidIdempotencyKey } from '../../src/client/idempotency-key.js';
import { KeyInvalidError } from '../../src/core/index.js';

describe('newIdempotencyKey', () => {
  it('returns a version 4 UUID', () => {
    expect(newIdempotencyKey()).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  it('returns a different key on every call', () => {
    const keys = new Set(Array.from({ length: 1_000 }, () => newIdempotencyKey()));

    expect(keys.size).toBe(1_000);
  });
});

describe('assertValidIdempotencyKey', () => {
  it.each(['', 'a'.repeat(256), 'has space', 'tab\t', 'caf\u00e9'])('refuses %p', (key) => {
    expect(() => assertValidIdempotencyKey(key)).toThrow(KeyInvalidError);
  });

  it.each([42, null, ['k'], { length: 1 }])('refuses %p, which is not a string', (key) => {
    expect(() => assertValidIdempotencyKey(key as never)).toThrow(/must be a string/);
  });

  it.each(['a', 'a'.repeat(255), '"quoted"', 'order-42:~!'])('accepts %p', (key) => {
    expect(() => assertValidIdempotencyKey(key)).not.toThrow();
  });
});

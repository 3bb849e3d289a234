import { KeyInvalidError } from '../core/errors.js';
import { keyProblem } from '../core/idempotency-key.js';

/** The request header that carries the key, as servers guarded by this toolkit read it. */
export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key';

/**
 * A fresh idempotency key: a random (version 4) UUID from `globalThis.crypto.randomUUID()`,
 * available in Node 20 and in browsers on secure (HTTPS or localhost) pages.
 *
 * Create one per logical operation, before the first attempt, and reuse it for every retry
 * of that operation: a new key per attempt would turn each retry into a new operation.
 *
 * @example
 * const key = newIdempotencyKey() // '3b241101-e2bb-4255-8caf-4136c566a962'
 */
export function newIdempotencyKey(): string {
  return globalThis.crypto.randomUUID();
}

/**
 * Throws `KeyInvalidError` unless `key` is what a guarded server accepts: 1 to 255 visible
 * ASCII characters (0x21–0x7E). Checked on the client so a bad key fails before any request.
 *
 * @example
 * assertValidIdempotencyKey('order-42') // passes
 */
export function assertValidIdempotencyKey(key: string): void {
  const problem = keyProblem(key);
  if (problem) throw new KeyInvalidError(`An Idempotency-Key ${problem}`);
}

/**
 * The `Idempotency-Key` header value that carries `key` unchanged to a guarded server: the key
 * as a bare token when it is one, else an RFC 8941 quoted string. A bare value holding a comma is
 * two list members to a server (and what a gateway makes of two header lines), and one starting
 * with `"` is read as a quoted string, so such keys travel quoted, with `"` and `\\` escaped.
 *
 * @example
 * keyHeaderValue('order-42') // 'order-42'
 * keyHeaderValue('order,42') // '"order,42"'
 */
export function keyHeaderValue(key: string): string {
  if (!key.includes(',') && !key.startsWith('"')) return key;
  return `"${key.replace(/[\\"]/g, (char) => `\\${char}`)}"`;
}

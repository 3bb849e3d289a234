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

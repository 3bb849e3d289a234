import canonicalize from 'canonicalize';
import { RequestInvalidError, sha256Hex } from '../core/index.js';

/**
 * Hex SHA-256 of the RFC 8785 canonical JSON of `value`: field order and whitespace do not
 * change it, any value does.
 *
 * @throws RequestInvalidError when the value has no canonical JSON form (NaN, BigInt,
 * lone surrogates, cycles, nesting deeper than the stack allows)
 * @example fingerprintOf({ b: 1, a: 2 }) === fingerprintOf({ a: 2, b: 1 }) // true
 */
export function fingerprintOf(value: unknown): string {
  let canonical: string | undefined;
  try {
    canonical = canonicalize(value);
  } catch (error) {
    throw new RequestInvalidError(`The request has no canonical JSON form: ${(error as Error).message}`, { cause: error });
  }
  return sha256Hex(canonical ?? 'undefined');
}

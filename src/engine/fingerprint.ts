import { createHash } from 'node:crypto';
import { RequestInvalidError } from '../core/index.js';
import { canonicalJsonPieces } from './canonical-json.js';

/**
 * Hex SHA-256 of the RFC 8785 canonical JSON of `value`: field order and whitespace do not
 * change it, any value does. A `Map`, `Set`, `BigInt` or binary data (typed arrays,
 * `ArrayBuffer`, `Buffer`) counts by its content, in a form no JSON value shares.
 *
 * @throws RequestInvalidError when the value has no faithful canonical form (NaN, Infinity,
 * lone surrogates, cycles, functions, symbols, weak collections, promises, nesting deeper
 * than the stack allows)
 * @example fingerprintOf({ b: 1, a: 2 }) === fingerprintOf({ a: 2, b: 1 }) // true
 */
export function fingerprintOf(value: unknown): string {
  let pieces: string[] | undefined;
  try {
    pieces = canonicalJsonPieces(value);
  } catch (error) {
    throw new RequestInvalidError(`The request has no canonical JSON form: ${(error as Error).message}`, {
      cause: error,
    });
  }
  // Piece by piece: joining a large embedded body to the text around it would copy it first.
  const hash = createHash('sha256');
  for (const piece of pieces ?? ['undefined']) hash.update(piece);
  return hash.digest('hex');
}

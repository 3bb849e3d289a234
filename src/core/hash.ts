import { hash } from 'node:crypto';

/**
 * Hex SHA-256 of a string or bytes: the one hash behind fingerprints, key hashes in logs,
 * derived keys and transaction tokens.
 *
 * @example sha256Hex('abc').slice(0, 8) // 'ba7816bf'
 */
export function sha256Hex(data: string | Uint8Array): string {
  // One-shot: a hash object per call costs several times more for the short inputs hashed per attempt.
  return hash('sha256', data, 'hex');
}

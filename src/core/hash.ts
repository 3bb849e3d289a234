import { hash } from 'node:crypto';

/**
 * Hex SHA-256 of a string or bytes: the hash behind key hashes in logs, derived keys, queue
 * message fingerprints and transaction tokens (a request fingerprint hashes its canonical JSON
 * piece by piece, the same SHA-256).
 *
 * @example sha256Hex('abc').slice(0, 8) // 'ba7816bf'
 */
export function sha256Hex(data: string | Uint8Array): string {
  // One-shot: a hash object per call costs several times more for the short inputs hashed per attempt.
  return hash('sha256', data, 'hex');
}

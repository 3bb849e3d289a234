/** Longest accepted idempotency key (or message id), in characters. */
export const MAX_KEY_LENGTH = 255;

/**
 * Why a key is invalid, or undefined when it is valid: 1 to {@link MAX_KEY_LENGTH}
 * characters, each visible ASCII (0x21–0x7E). The server guards and the caller-side client
 * apply this one rule, so a key the client accepts is never refused by the server.
 *
 * @example keyProblem('order 42') // 'may contain only visible ASCII characters (0x21-0x7E)'
 */
export function keyProblem(key: string): string | undefined {
  if (typeof key !== 'string') return `must be a string, got ${typeof key}`;
  if (key.length === 0) return 'is empty';
  if (key.length > MAX_KEY_LENGTH) return `is longer than ${MAX_KEY_LENGTH} characters`;
  for (let i = 0; i < key.length; i++) {
    const code = key.charCodeAt(i);
    if (code < 0x21 || code > 0x7e) return 'may contain only visible ASCII characters (0x21-0x7E)';
  }
  return undefined;
}

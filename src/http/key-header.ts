import { keyProblem } from '../core/index.js';

/** Result of reading the idempotency key from request headers. */
export type KeyReading =
  | { readonly kind: 'missing' }
  | { readonly kind: 'invalid'; readonly reason: string }
  | { readonly kind: 'present'; readonly key: string };

/**
 * Reads the key header case-insensitively, as a bare token or an RFC 8941 quoted string
 * (`"abc"` and `abc` are the same key), and validates it: 1–255 characters, each visible
 * ASCII (0x21–0x7E).
 *
 * @example readKeyHeader({ 'idempotency-key': '"abc"' }, 'Idempotency-Key') // { kind: 'present', key: 'abc' }
 */
export function readKeyHeader(
  headers: Record<string, string | undefined> | null | undefined,
  headerName: string,
  multiValueHeaders?: Record<string, readonly string[] | undefined> | null,
): KeyReading {
  const wanted = headerName.toLowerCase();
  // REST and ALB events may carry the key under several spellings, in either map: every value counts.
  const values = new Set<unknown>();
  for (const [name, list] of Object.entries(multiValueHeaders ?? {})) {
    if (name.toLowerCase() === wanted && Array.isArray(list)) for (const value of list) values.add(value);
  }
  for (const [name, value] of Object.entries(headers ?? {})) {
    if (name.toLowerCase() === wanted && value !== undefined && value !== null) values.add(value);
  }
  if (values.size > 1) return { kind: 'invalid', reason: `More than one ${headerName} header` };
  const [raw] = values;
  if (raw === undefined || raw === null) return { kind: 'missing' };
  if (typeof raw !== 'string') return { kind: 'invalid', reason: `${headerName} must be a string` };
  const value = raw.replace(/^[ \t]+|[ \t]+$/g, '');
  if (value.length === 0) return { kind: 'invalid', reason: `${headerName} is empty` };
  const key = value.startsWith('"') ? unquote(value) : value;
  if (key === undefined) return { kind: 'invalid', reason: `${headerName} is not a valid RFC 8941 string` };
  const problem = keyProblem(key);
  return problem ? { kind: 'invalid', reason: `${headerName} ${problem}` } : { kind: 'present', key };
}

/** Parses an RFC 8941 sf-string: `"` ... `"` with `\"` and `\\` escapes only. */
function unquote(value: string): string | undefined {
  let out = '';
  for (let i = 1; i < value.length; i++) {
    const char = value[i];
    if (char === '\\') {
      const next = value[++i];
      if (next !== '"' && next !== '\\') return undefined;
      out += next;
    } else if (char === '"') {
      return i === value.length - 1 ? out : undefined;
    } else {
      const code = char.charCodeAt(0);
      if (code < 0x20 || code > 0x7e) return undefined;
      out += char;
    }
  }
  return undefined;
}

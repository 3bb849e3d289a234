import { RequestInvalidError, sha256Hex } from '../core/index.js';
import { CanonicalText, canonicalJson, isWellFormed, NestedTooDeepError, NotCanonicalError } from '../engine/index.js';
import { viewHttpEvent, type HttpRequestView } from './http-event.js';

const utf8 = new TextDecoder('utf-8', { fatal: true });
/**
 * Where a number token may have more significant digits than a double keeps, or an exponent:
 * a value position (after `:`, `,` or `[`) opening 16 digits and dots, or digits then `e`.
 * Without a match every number of the text parses exactly; a match (also met inside strings)
 * sends the text to the exact scan.
 */
const LONG_OR_EXPONENT_NUMBER = /[:,[]\s*-?(?:[\d.]{16}|\d[\d.]*[eE])/;

/**
 * What `httpIdempotency` fingerprints by default for an HTTP event of any flavor (HTTP API,
 * function URL, REST API, ALB): a custom `fingerprint` option can add to it instead of
 * restating it. The value is hashed as canonical JSON, like any fingerprint input.
 *
 * @throws RequestInvalidError for an event that is not an HTTP event, or a JSON body with
 * duplicate keys or excessive nesting
 * @example
 * httpIdempotency({ journal, fingerprint: (event) => ({ ...defaultHttpFingerprint(event), tenant: event.headers['x-tenant'] }) })
 */
export function defaultHttpFingerprint(event: unknown): unknown {
  return defaultRequestFingerprint(viewHttpEvent(event));
}

/**
 * The default fingerprint input of an HTTP request: method, concrete path, query string and
 * body, so one key can never replay another resource's outcome. A JSON body is compared by
 * value (field order and whitespace do not matter); any other body by its bytes.
 *
 * @throws RequestInvalidError for a JSON body with duplicate keys or excessive nesting
 */
export function defaultRequestFingerprint(view: FingerprintedRequest): unknown {
  return { method: view.method, path: view.path, query: view.query, body: bodyForFingerprint(view) };
}

/**
 * What the default fingerprint reads of a request. `body` is a string as a Lambda event carries
 * it (base64 when `isBase64Encoded`), the bytes a framework door read, or a value a body parser made.
 */
export type FingerprintedRequest = Pick<HttpRequestView, 'method' | 'path' | 'query' | 'body'> & {
  readonly isBase64Encoded?: boolean;
};

function bodyForFingerprint(view: FingerprintedRequest): unknown {
  const body = view.body;
  if (body === undefined || body === null || body === '') return null;
  // The same bytes hash alike whichever door read them: a door's bytes are read as an event's base64 body is.
  if (body instanceof Uint8Array) return body.byteLength === 0 ? null : bytesBody(Buffer.from(body));
  // A body-parser middleware that ran first has already turned the text into a value.
  if (typeof body !== 'string') return { json: body };
  if (view.isBase64Encoded) return bytesBody(Buffer.from(body, 'base64'));
  // UTF-8 would turn every lone surrogate into U+FFFD, and two different texts would look alike.
  if (!isWellFormed(body)) throw new RequestInvalidError('The body is not well-formed Unicode text (lone surrogate)');
  // A well-formed string is its own UTF-8 decoding: hashing it hashes its bytes.
  return textBody(body, () => body);
}

function bytesBody(bytes: Buffer): unknown {
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    return { raw: sha256Hex(bytes) };
  }
  return textBody(text, () => bytes);
}

/** The fingerprint of a body read as `text`; `raw` is what is hashed when it is no JSON a double can hold. */
function textBody(text: string, raw: () => string | Buffer): unknown {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { raw: sha256Hex(raw()) };
  }
  // The exact scan reads every token; the common case is settled by two native passes over the text instead.
  const exact = LONG_OR_EXPONENT_NUMBER.test(text) || text.includes('\\u003') || typeof parsed === 'number';
  if (exact) {
    const shape = inspectJson(text);
    if (shape.problem) throw new RequestInvalidError(shape.problem);
    // Parsing would round such numbers, and two different requests would then look alike.
    if (shape.lossyNumbers) return { raw: sha256Hex(raw()) };
  }
  const canonical = canonicalBody(parsed);
  // Each member of the text has its colon, and so has each colon inside its strings (none is escaped, or the
  // exact scan ran): a colon fewer in the canonical form is a member a duplicate key overwrote.
  if (!exact && colonsIn(canonical) !== colonsIn(text))
    throw new RequestInvalidError(inspectJson(text).problem ?? 'Duplicate key in the JSON body');
  return { json: new CanonicalText(canonical) };
}

function canonicalBody(parsed: unknown): string {
  try {
    return canonicalJson(parsed, { maxDepth: MAX_JSON_DEPTH }) as string;
  } catch (error) {
    if (!(error instanceof NotCanonicalError)) throw error;
    const reason =
      error instanceof NestedTooDeepError
        ? `The JSON body is nested deeper than ${MAX_JSON_DEPTH} levels`
        : `The request has no canonical JSON form: ${error.message}`;
    throw new RequestInvalidError(reason, { cause: error });
  }
}

function colonsIn(text: string): number {
  let count = 0;
  for (let at = text.indexOf(':'); at !== -1; at = text.indexOf(':', at + 1)) count++;
  return count;
}

/** Deepest nesting of arrays and objects accepted in a request body. */
const MAX_JSON_DEPTH = 64;
/** Doubles keep every value of up to 15 significant digits exactly. */
const EXACT_SIGNIFICANT_DIGITS = 15;

/** What {@link inspectJson} found in a JSON text. */
export interface JsonShape {
  /** Why the text is ambiguous or unsafe to fingerprint (duplicate key, too deep). */
  readonly problem?: string;
  /** True when a number has more significant digits than a double keeps, so parsing loses its value. */
  readonly lossyNumbers: boolean;
}

/**
 * Scans a JSON text that `JSON.parse` accepted for what parsing would hide: a duplicated
 * object key (parsers disagree on which value wins), nesting deeper than
 * {@link MAX_JSON_DEPTH}, and numbers a double cannot hold exactly.
 */
export function inspectJson(text: string): JsonShape {
  const keysStack: Array<Set<string> | undefined> = [];
  let expectingKey = false;
  let lossyNumbers = false;
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (char === '"') {
      const end = stringEnd(text, i);
      const object = keysStack[keysStack.length - 1];
      if (expectingKey && object) {
        const raw = text.slice(i + 1, end);
        // Only escaped keys need decoding to compare ("a" and "\u0061" are the same key).
        const key = raw.includes('\\') ? (JSON.parse(text.slice(i, end + 1)) as string) : raw;
        if (object.has(key)) return { problem: `Duplicate key ${JSON.stringify(key)} in the JSON body`, lossyNumbers };
        object.add(key);
        expectingKey = false;
      }
      i = end;
    } else if (char === '{' || char === '[') {
      keysStack.push(char === '{' ? new Set() : undefined);
      if (keysStack.length > MAX_JSON_DEPTH)
        return { problem: `The JSON body is nested deeper than ${MAX_JSON_DEPTH} levels`, lossyNumbers };
      expectingKey = char === '{';
    } else if (char === '}' || char === ']') {
      keysStack.pop();
      expectingKey = false;
    } else if (char === ',') {
      expectingKey = keysStack[keysStack.length - 1] !== undefined;
    } else if (char === '-' || (char >= '0' && char <= '9')) {
      const end = numberEnd(text, i);
      lossyNumbers ||= !isExactDouble(text.slice(i, end));
      i = end - 1;
    }
  }
  return { lossyNumbers };
}

/**
 * True when parsing `token` gives a double whose shortest form is the same decimal value, so
 * two different numbers in two bodies can never parse to one value. Tokens of up to 15
 * significant digits in the normal range always are; others (more digits, subnormal, too
 * large) are checked by reading the double back.
 */
function isExactDouble(token: string): boolean {
  const written = decimalOf(token);
  if (written.digits.length <= EXACT_SIGNIFICANT_DIGITS && written.exponent > -300 && written.exponent < 300)
    return true;
  const parsed = Number(token);
  if (!Number.isFinite(parsed)) return false;
  const read = decimalOf(String(parsed));
  return read.negative === written.negative && read.digits === written.digits && read.exponent === written.exponent;
}

/** A decimal as sign, significant digits and the exponent of its last digit (zero has no digits). */
function decimalOf(token: string): { negative: boolean; digits: string; exponent: number } {
  const [mantissa, exponentPart] = token.toLowerCase().split('e');
  const negative = mantissa.startsWith('-');
  const [whole, fraction = ''] = mantissa.replace(/^[-+]/, '').split('.');
  let digits = (whole + fraction).replace(/^0+/, '');
  let exponent = Number(exponentPart ?? 0) - fraction.length;
  const trailing = digits.length - digits.replace(/0+$/, '').length;
  digits = digits.slice(0, digits.length - trailing);
  exponent += trailing;
  return digits.length === 0 ? { negative: false, digits: '', exponent: 0 } : { negative, digits, exponent };
}

function numberEnd(text: string, start: number): number {
  let i = start;
  while (i < text.length && '0123456789.eE+-'.includes(text[i])) i++;
  return i;
}

function stringEnd(text: string, start: number): number {
  for (let i = start + 1; i < text.length; i++) {
    if (text[i] === '\\') i++;
    else if (text[i] === '"') return i;
  }
  return text.length - 1;
}

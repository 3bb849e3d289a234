import fc from 'fast-check';

const char = (min: number, max: number) => fc.integer({ min, max }).map((code) => String.fromCharCode(code));

/** Any UTF-16 code unit, lone surrogates included. */
export const codeUnit = char(0, 0xffff);

/** Strings of any UTF-16 code units: controls, unicode, lone surrogates. */
export const anyString = (maxLength = 40) => fc.string({ unit: codeUnit, maxLength });

/** Well-formed unicode strings (no lone surrogate), including astral characters. */
export const unicodeString = (maxLength = 20) => fc.string({ unit: 'binary', maxLength });

/** A valid idempotency key: 1–255 visible ASCII characters. */
export const validKey = fc.string({ unit: char(0x21, 0x7e), minLength: 1, maxLength: 255 });

/** The RFC 8941 sf-string form of a key: quoted, with `"` and `\` escaped. */
export const quoted = (key: string) => `"${key.replace(/[\\"]/g, (c) => `\\${c}`)}"`;

/** Optional white space (spaces and tabs) around a header value. */
export const padding = fc.string({ unit: fc.constantFrom(' ', '\t'), maxLength: 3 });

/** The key header's name in any letter case. */
export const keyHeaderName = fc
  .array(fc.boolean(), { minLength: 15, maxLength: 15 })
  .map((upper) => [...'idempotency-key'].map((c, i) => (upper[i] ? c.toUpperCase() : c)).join(''));

/** Header values as a hostile client could send them: quotes, escapes, control characters, unicode, lone surrogates. */
export const headerValue = fc.oneof(
  validKey,
  validKey.map(quoted),
  fc.string({
    unit: fc.constantFrom(
      '"',
      '\\',
      ' ',
      '\t',
      'a',
      'Z',
      '0',
      '-',
      ',',
      ';',
      '=',
      '\u0000',
      '\u001f',
      '\u007f',
      '\u00e9',
      '\ud800',
      '\udc00',
    ),
    maxLength: 12,
  }),
  anyString(),
  fc.tuple(padding, validKey, padding).map(([a, key, b]) => a + key + b),
  fc.constantFrom('', ' ', '""', '"', '\\', '"\\"', '"a\\b"', '"a"b"', 'k'.repeat(256), `"${'k'.repeat(256)}"`),
);

/** JSON texts written differently for the same value. */
export interface Rendering {
  /** Seeds the choices: key order, white space, string escapes and number forms. */
  readonly choices: readonly number[];
}

/**
 * Writes `value` as JSON text, making a choice at each token from `choices` (cycled): the
 * order of object members, the white space around tokens, whether a character of a string is
 * written as a `\uXXXX` escape, and how an integer is written (`5`, `5.0`, `50e-1`, `5E0`).
 * Every rendering of a value is equal to it as a value.
 */
export function render(value: unknown, choices: readonly number[]): string {
  let i = 0;
  const next = () => (choices.length === 0 ? 0 : choices[i++ % choices.length]);
  const space = () => ['', ' ', '\n  ', '\t', '\r\n'][next() % 5];
  const write = (v: unknown): string => {
    if (v === null || typeof v === 'boolean') return JSON.stringify(v);
    if (typeof v === 'number') {
      const plain = JSON.stringify(v);
      if (!Number.isInteger(v) || Math.abs(v) >= 1e14 || Object.is(v, -0)) return plain;
      return [plain, `${plain}.0`, `${v * 10}e-1`, `${plain}E0`, `${plain}e+0`][next() % 5];
    }
    if (typeof v === 'string') return writeString(v, next);
    if (Array.isArray(v)) return `[${space()}${v.map((item) => write(item)).join(`${space()},${space()}`)}${space()}]`;
    const keys = Object.keys(v as object);
    const order = keys.map((key, index) => ({ key, rank: next() * 31 + index })).sort((a, b) => a.rank - b.rank);
    return `{${space()}${order.map(({ key }) => `${write(key)}${space()}:${space()}${write((v as Record<string, unknown>)[key])}`).join(`${space()},${space()}`)}${space()}}`;
  };
  return space() + write(value) + space();
}

/** A JSON string whose plain ASCII letters and digits are written as `\uXXXX` escapes when `next()` says so. */
function writeString(value: string, next: () => number): string {
  const body = JSON.stringify(value).slice(1, -1);
  let out = '';
  for (let i = 0; i < body.length; i++) {
    if (body[i] === '\\') {
      const length = body[i + 1] === 'u' ? 6 : 2;
      out += body.slice(i, i + length);
      i += length - 1;
    } else if (/[a-zA-Z0-9]/.test(body[i]) && next() % 4 === 0) {
      out += `\\u${body.charCodeAt(i).toString(16).padStart(4, '0')}`;
    } else {
      out += body[i];
    }
  }
  return `"${out}"`;
}

/** Choices for {@link render}. */
export const renderingChoices = fc.array(fc.nat({ max: 1000 }), { minLength: 1, maxLength: 30 });

/** JSON values whose numbers a double holds exactly with at most 15 significant digits, and whose strings are well-formed. */
export const plainJsonValue: fc.Arbitrary<unknown> = fc
  .jsonValue({ maxDepth: 4, stringUnit: 'binary' })
  .map(roundNumbers);

function roundNumbers(value: unknown): unknown {
  if (typeof value === 'number') return Number.isFinite(value) ? Number(value.toPrecision(15)) : 0;
  if (Array.isArray(value)) return value.map(roundNumbers);
  if (value && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, roundNumbers(v)]));
  return value;
}

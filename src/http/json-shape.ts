/** Deepest nesting of arrays and objects accepted in a request body. */
export const MAX_JSON_DEPTH = 64;
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

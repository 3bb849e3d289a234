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
      if (keysStack.length > MAX_JSON_DEPTH) return { problem: `The JSON body is nested deeper than ${MAX_JSON_DEPTH} levels`, lossyNumbers };
      expectingKey = char === '{';
    } else if (char === '}' || char === ']') {
      keysStack.pop();
      expectingKey = false;
    } else if (char === ',') {
      expectingKey = keysStack[keysStack.length - 1] !== undefined;
    } else if (char === '-' || (char >= '0' && char <= '9')) {
      const end = numberEnd(text, i);
      lossyNumbers ||= end - i > EXACT_SIGNIFICANT_DIGITS && significantDigits(text.slice(i, end)) > EXACT_SIGNIFICANT_DIGITS;
      i = end - 1;
    }
  }
  return { lossyNumbers };
}

function significantDigits(token: string): number {
  const mantissa = token.split(/[eE]/)[0].replace(/[-.]/g, '');
  return mantissa.replace(/^0+/, '').replace(/0+$/, '').length;
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

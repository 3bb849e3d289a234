import { createHash } from 'node:crypto';
import { RequestInvalidError } from '../core/index.js';

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

/**
 * RFC 8785 (JSON Canonicalization Scheme) text of a value, the input of every fingerprint.
 *
 * JSON values give exactly the RFC 8785 text: object keys sorted by UTF-16 code units, numbers
 * and strings as ECMAScript serializes them, no whitespace. Values JSON would flatten or refuse
 * are written by content in forms that start with `#`, which no JSON text has outside a
 * string, so they can never collide with a JSON value or with each other: a `Map` as its
 * sorted entries, a `Set` as its sorted elements, a `BigInt` as its digits, binary data as
 * its type and bytes. What has no content to compare (functions, symbols, weak collections,
 * promises) and what JSON cannot carry faithfully (NaN, Infinity, lone surrogates, cycles)
 * is refused.
 */

/** A JSON text already in canonical form, written as it is where it appears in a value. */
export class CanonicalText {
  constructor(readonly text: string) {}
}

/** Why a value has no canonical form. */
export class NotCanonicalError extends Error {}

/** A value nested deeper than {@link CanonicalJsonOptions.maxDepth}. */
export class NestedTooDeepError extends NotCanonicalError {
  constructor(readonly maxDepth: number) {
    super(`The value is nested deeper than ${maxDepth} levels`);
  }
}

/** Options of {@link canonicalJson}. */
export interface CanonicalJsonOptions {
  /**
   * Deepest nesting of arrays, objects, maps and sets accepted; deeper values throw.
   * @default unlimited (up to what the stack allows)
   */
  readonly maxDepth?: number;
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
/** An escaped lone surrogate in `JSON.stringify` output: `\udXXX` after an even number of backslashes. */
const ESCAPED_LONE_SURROGATE = /(?:^|[^\\])(?:\\\\)*\\ud[89a-f]/;
/** Nesting past which a value is written by the careful path, which finds cycles. */
const FAST_PATH_MAX_DEPTH = 512;
/**
 * Stands for an embedded {@link CanonicalText} while the text around it is written: no canonical text holds a raw NUL.
 */
const FRAGMENT_MARK = '\u0000';
const typeTag = (value: object) => Object.prototype.toString.call(value).slice(8, -1);

/**
 * The canonical text of `value`, or undefined for `undefined` (as `JSON.stringify`).
 *
 * @throws NotCanonicalError when the value has no faithful canonical form
 * @example canonicalJson({ b: 1, a: [true, null] }) // '{"a":[true,null],"b":1}'
 */
export function canonicalJson(value: unknown, options: CanonicalJsonOptions = {}): string | undefined {
  const pieces = canonicalJsonPieces(value, options);
  return pieces && pieces.length === 1 ? pieces[0] : pieces?.join('');
}

/**
 * The canonical text of `value` as consecutive pieces, an embedded {@link CanonicalText} being
 * one of them: a hash can take them in turn instead of a copy of a large text joined up.
 *
 * Plain data (the output of `JSON.parse`, object literals) takes a native path: `JSON.stringify`
 * given every key of the value in code-unit order writes each object's members in exactly that
 * order. Anything else, and data whose many distinct keys would make that list long for each
 * object, is written member by member.
 *
 * @throws NotCanonicalError when the value has no faithful canonical form
 * @example canonicalJsonPieces({ a: new CanonicalText('[1]') }) // ['{"a":', '[1]', '}']
 */
function canonicalJsonPieces(value: unknown, options: CanonicalJsonOptions = {}): string[] | undefined {
  const maxDepth = options.maxDepth ?? Infinity;
  const survey: Survey = { keys: new Set(), objects: 0, members: 0, maxDepth };
  // Each object costs one lookup per listed key: past a few per member, member by member is cheaper.
  if (
    isPlainScalar(value) ||
    (typeof value === 'object' &&
      value !== null &&
      surveyPlain(value, survey, 1) &&
      survey.objects * survey.keys.size <= 8 * survey.members + 1024)
  ) {
    const text = JSON.stringify(value, [...survey.keys].sort());
    // JSON.stringify escapes a lone surrogate where RFC 8785 has no form for it.
    if (text !== undefined && text.includes('\\ud') && ESCAPED_LONE_SURROGATE.test(text))
      throw new NotCanonicalError('Lone surrogate is not allowed');
    return text === undefined ? undefined : [text];
  }
  const fragments: string[] = [];
  const text = write(value, { seen: new Set(), maxDepth, fragments, path: ['$'] }, 1);
  if (text === undefined) return undefined;
  if (fragments.length === 0) return [text];
  // Between two marks stands the index of a fragment: odd pieces become fragments.
  return text.split(FRAGMENT_MARK).map((piece, i) => (i % 2 === 1 ? fragments[Number(piece)] : piece));
}

interface Survey {
  readonly keys: Set<string>;
  objects: number;
  members: number;
  readonly maxDepth: number;
}

function isPlainScalar(value: unknown): boolean {
  return (
    typeof value === 'string' ||
    typeof value === 'boolean' ||
    value === undefined ||
    value === null ||
    (typeof value === 'number' && value - value === 0)
  );
}

/**
 * Walks plain data, collecting its keys; false at the first value the native path would write
 * differently (or not refuse): a non-finite number, a BigInt, a function, a symbol, an object
 * that is not a plain object, array or date, a `toJSON` key, a `__proto__` key (looked up
 * through the prototype by `JSON.stringify`), or nesting deep enough to be a cycle.
 */
function surveyPlain(value: object, survey: Survey, depth: number): boolean {
  if (depth > survey.maxDepth) throw new NestedTooDeepError(survey.maxDepth);
  if (depth > FAST_PATH_MAX_DEPTH) return false;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      if (typeof item === 'object' && item !== null ? !surveyPlain(item, survey, depth + 1) : !isPlainScalar(item))
        return false;
    }
    return true;
  }
  const prototype = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) return prototype === Date.prototype;
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record);
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i];
    if (key === '__proto__' || key === 'toJSON') return false;
    survey.keys.add(key);
    const item = record[key];
    if (typeof item === 'object' && item !== null ? !surveyPlain(item, survey, depth + 1) : !isPlainScalar(item))
      return false;
  }
  survey.objects++;
  survey.members += keys.length;
  return true;
}

interface Writing {
  readonly seen: Set<object>;
  readonly maxDepth: number;
  readonly fragments: string[];
  /** Where in the value the writing is, for errors: `$`, `$.amount`, `$.items[2]`. */
  readonly path: string[];
}

/**
 * Whether a string has no lone surrogate: natively where the runtime has `isWellFormed` (ten
 * times the regular expression's speed on non-Latin-1 text).
 */
export function isWellFormed(text: string): boolean {
  const native = (text as { isWellFormed?: () => boolean }).isWellFormed;
  return native ? native.call(text) : !LONE_SURROGATE.test(text);
}

function write(value: unknown, writing: Writing, depth: number): string | undefined {
  switch (typeof value) {
    case 'undefined':
      return undefined;
    case 'string':
      if (!isWellFormed(value)) throw new NotCanonicalError('Lone surrogate is not allowed');
      return JSON.stringify(value);
    case 'number':
      if (!Number.isFinite(value)) throw new NotCanonicalError(`${value} is not allowed`);
      return JSON.stringify(value);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'bigint':
      return `#bigint(${value})`;
    case 'function':
    case 'symbol':
      throw new NotCanonicalError(`A ${typeof value} has no content to compare`);
  }
  if (value === null) return 'null';
  const object = value as object;
  if (object instanceof CanonicalText)
    return `${FRAGMENT_MARK}${writing.fragments.push(object.text) - 1}${FRAGMENT_MARK}`;
  if (writing.seen.has(object)) throw new NotCanonicalError('Circular reference detected');
  if (depth > writing.maxDepth) throw new NestedTooDeepError(writing.maxDepth);
  writing.seen.add(object);
  try {
    return writeObject(object, writing.path, (item, step) => {
      writing.path.push(step);
      try {
        return write(item, writing, depth + 1);
      } finally {
        writing.path.pop();
      }
    });
  } finally {
    writing.seen.delete(object);
  }
}

function writeObject(
  object: object,
  path: readonly string[],
  write: (item: unknown, step: string) => string | undefined,
): string | undefined {
  // Array.from reads holes as undefined, written null as JSON does.
  if (Array.isArray(object)) return `[${Array.from(object, (item, i) => write(item, `[${i}]`) ?? 'null').join(',')}]`;
  if (ArrayBuffer.isView(object))
    return `#${typeTag(object)}(${Buffer.from(object.buffer, object.byteOffset, object.byteLength).toString('hex')})`;
  if (
    object instanceof ArrayBuffer ||
    (typeof SharedArrayBuffer === 'function' && object instanceof SharedArrayBuffer)
  ) {
    return `#${typeTag(object)}(${Buffer.from(object).toString('hex')})`;
  }
  // Inside a Map or Set, undefined is content of its own, not JSON's null.
  const content = (item: unknown) => write(item, '[entry]') ?? '#undefined';
  if (object instanceof Map)
    return `#map[${sorted([...object].map(([key, item]) => `[${content(key)},${content(item)}]`))}]`;
  if (object instanceof Set) return `#set[${sorted([...object].map(content))}]`;
  if (object instanceof RegExp) return `#regexp(${JSON.stringify(String(object))})`;
  if (
    object instanceof WeakMap ||
    object instanceof WeakSet ||
    object instanceof WeakRef ||
    object instanceof Promise
  ) {
    throw new NotCanonicalError(`A ${typeTag(object)} has no content to compare`);
  }
  const withJson = object as { toJSON?: () => unknown };
  if (typeof withJson.toJSON === 'function') return write(withJson.toJSON(), '');
  const keys = Object.keys(object);
  const prototype = Object.getPrototypeOf(object);
  if (keys.length === 0 && prototype !== Object.prototype && prototype !== null) {
    // Its state is private (`#fields`, closures, non-enumerable properties): two different values would write alike.
    const kind = (prototype as { constructor?: { name?: string } }).constructor?.name || typeTag(object);
    throw new NotCanonicalError(
      `The ${kind} at ${path.join('')} has no enumerable state to compare: give it a toJSON() or pass its content`,
    );
  }
  const members: string[] = [];
  for (const key of keys.sort()) {
    const item = write(
      (object as Record<string, unknown>)[key],
      /^[A-Za-z_$][\w$]*$/.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`,
    );
    if (item !== undefined) members.push(`${memberName(key)}:${item}`);
  }
  return `{${members.join(',')}}`;
}

function memberName(key: string): string {
  if (!isWellFormed(key)) throw new NotCanonicalError('Lone surrogate is not allowed');
  return JSON.stringify(key);
}

function sorted(texts: string[]): string {
  return texts.sort().join(',');
}

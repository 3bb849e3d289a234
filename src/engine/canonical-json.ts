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

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const typeTag = (value: object) => Object.prototype.toString.call(value).slice(8, -1);

/**
 * The canonical text of `value`, or undefined for `undefined` (as `JSON.stringify`).
 *
 * @throws NotCanonicalError when the value has no faithful canonical form
 * @example canonicalJson({ b: 1, a: [true, null] }) // '{"a":[true,null],"b":1}'
 */
export function canonicalJson(value: unknown): string | undefined {
  return write(value, new Set());
}

function write(value: unknown, seen: Set<object>): string | undefined {
  switch (typeof value) {
    case 'undefined':
      return undefined;
    case 'string':
      if (LONE_SURROGATE.test(value)) throw new NotCanonicalError('Lone surrogate is not allowed');
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
  if (object instanceof CanonicalText) return object.text;
  if (seen.has(object)) throw new NotCanonicalError('Circular reference detected');
  seen.add(object);
  try {
    return writeObject(object, seen);
  } finally {
    seen.delete(object);
  }
}

function writeObject(object: object, seen: Set<object>): string | undefined {
  if (Array.isArray(object)) return `[${object.map((item) => write(item, seen) ?? 'null').join(',')}]`;
  if (ArrayBuffer.isView(object)) return `#${typeTag(object)}(${Buffer.from(object.buffer, object.byteOffset, object.byteLength).toString('hex')})`;
  if (object instanceof ArrayBuffer || (typeof SharedArrayBuffer === 'function' && object instanceof SharedArrayBuffer)) {
    return `#${typeTag(object)}(${Buffer.from(object).toString('hex')})`;
  }
  // Inside a Map or Set, undefined is content of its own, not JSON's null.
  const content = (item: unknown) => write(item, seen) ?? '#undefined';
  if (object instanceof Map) return `#map[${sorted([...object].map(([key, item]) => `[${content(key)},${content(item)}]`))}]`;
  if (object instanceof Set) return `#set[${sorted([...object].map(content))}]`;
  if (object instanceof RegExp) return `#regexp(${JSON.stringify(String(object))})`;
  if (object instanceof WeakMap || object instanceof WeakSet || object instanceof WeakRef || object instanceof Promise) {
    throw new NotCanonicalError(`A ${typeTag(object)} has no content to compare`);
  }
  const withJson = object as { toJSON?: () => unknown };
  if (typeof withJson.toJSON === 'function') return write(withJson.toJSON(), seen);
  const members: string[] = [];
  for (const key of Object.keys(object).sort()) {
    const item = write((object as Record<string, unknown>)[key], seen);
    if (item !== undefined) members.push(`${write(key, seen)}:${item}`);
  }
  return `{${members.join(',')}}`;
}

function sorted(texts: string[]): string {
  return texts.sort().join(',');
}

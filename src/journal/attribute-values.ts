import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { convertToAttr, convertToNative, type NativeAttributeValue } from '@aws-sdk/util-dynamodb';

/** A DynamoDB item in the wire format. */
export type AttributeMap = Record<string, AttributeValue>;

const MARSHALL_OPTIONS = { removeUndefinedValues: true } as const;

/**
 * `marshall(item, { removeUndefinedValues: true })` of `@aws-sdk/util-dynamodb`, with direct
 * paths for the values journal items are made of (strings, safe numbers, booleans, null,
 * bytes, plain arrays and objects). Every other value goes through util-dynamodb's own
 * conversion, so the result, and any error, is the library's: this only skips the generic type
 * tests that cost more than the rest of an attempt's bookkeeping on the hot path.
 *
 * @example toAttributeMap({ pk: 'req#a', attempt: 1 }) // { pk: { S: 'req#a' }, attempt: { N: '1' } }
 */
export function toAttributeMap(item: Record<string, unknown>): AttributeMap {
  const map: AttributeMap = {};
  for (const name in item) {
    const value = item[name];
    if (value !== undefined && typeof value !== 'function') map[name] = toAttribute(value);
  }
  return map;
}

function toAttribute(value: unknown): AttributeValue {
  switch (typeof value) {
    case 'string':
      return { S: value };
    case 'boolean':
      return { BOOL: value };
    case 'number':
      // NaN fails both comparisons and meets the library's error.
      if (value <= Number.MAX_SAFE_INTEGER && value >= Number.MIN_SAFE_INTEGER) return { N: String(value) };
      break;
    case 'object': {
      if (value === null) return { NULL: true };
      if (Array.isArray(value))
        return {
          L: value.filter((element) => element !== undefined && typeof element !== 'function').map(toAttribute),
        };
      const prototype = Object.getPrototypeOf(value);
      if (prototype === Object.prototype || prototype === null)
        return { M: toAttributeMap(value as Record<string, unknown>) };
      if (value.constructor === Buffer || value.constructor === Uint8Array) return { B: value as Uint8Array };
      break;
    }
  }
  return convertToAttr(value as NativeAttributeValue, MARSHALL_OPTIONS);
}

/**
 * `unmarshall(map)` of `@aws-sdk/util-dynamodb`, with the same direct paths: numbers beyond
 * the safe range, sets and anything else go through the library's own conversion.
 *
 * @example fromAttributeMap({ pk: { S: 'req#a' } }) // { pk: 'req#a' }
 */
export function fromAttributeMap(map: AttributeMap): Record<string, unknown> {
  const item: Record<string, unknown> = {};
  // Own names only, as util-dynamodb reads them (Object.entries): a map whose prototype was set
  // by an attribute named `__proto__` must not hand its inherited names over as attributes.
  for (const name of Object.keys(map)) item[name] = fromAttribute(map[name]);
  return item;
}

function fromAttribute(value: AttributeValue): unknown {
  if (value.S !== undefined) return value.S;
  if (value.N !== undefined) {
    const number = Number(value.N);
    if (number <= Number.MAX_SAFE_INTEGER && number >= Number.MIN_SAFE_INTEGER) return number;
  } else if (value.BOOL !== undefined) return value.BOOL;
  else if (value.B !== undefined) return value.B;
  else if (value.M !== undefined) return fromAttributeMap(value.M);
  else if (value.L !== undefined) return value.L.map(fromAttribute);
  else if (value.NULL !== undefined) return null;
  return convertToNative(value as never);
}

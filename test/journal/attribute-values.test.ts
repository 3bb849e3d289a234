import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import fc from 'fast-check';
import { fromAttributeMap, toAttributeMap } from '../../src/journal/attribute-values.js';

const OPTIONS = { removeUndefinedValues: true } as const;

/** Values journal items and staged writes are made of, including the ones only the library converts. */
const value: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  any: fc.oneof(
    { depthSize: 'small' },
    fc.string(),
    fc.integer(),
    fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e15, max: 1e15 }),
    fc.boolean(),
    fc.constant(null),
    fc.constant(undefined),
    fc.uint8Array().map((bytes) => Buffer.from(bytes)),
    fc.bigInt(),
    fc.uniqueArray(fc.string(), { minLength: 1, maxLength: 4 }).map((strings) => new Set(strings)),
    fc.array(tie('any'), { maxLength: 4 }),
    fc.dictionary(fc.string(), tie('any'), { maxKeys: 4 }),
  ),
})).any;

describe('journal marshalling', () => {
  it('marshalls every item exactly as util-dynamodb does', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), value, { maxKeys: 6 }), (item) => {
        expect(toAttributeMap(item)).toEqual(marshall(item, OPTIONS));
      }),
    );
  });

  it('unmarshalls every item exactly as util-dynamodb does', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), value, { maxKeys: 6 }), (item) => {
        const map = marshall(item, OPTIONS);
        expect(fromAttributeMap(map)).toEqual(unmarshall(map));
      }),
    );
  });

  it('reads an item whose map got its prototype from a `__proto__` attribute as util-dynamodb does', () => {
    // fast-check found it: marshall() assigns the attribute, which sets the map's prototype.
    const item = Object.defineProperty({}, '__proto__', { value: null, enumerable: true });
    const map = marshall(item, OPTIONS);
    expect(fromAttributeMap(map)).toEqual(unmarshall(map));
  });

  it.each([
    ['NaN', Number.NaN],
    ['a number beyond the safe integers', 2 ** 60],
    ['an empty set', new Set()],
    ['a class instance', new (class Money {})()],
  ])('refuses %s with the library’s own error', (_name, bad) => {
    const errorOf = (convert: () => unknown) => {
      try {
        convert();
        return undefined;
      } catch (error) {
        return (error as Error).message;
      }
    };
    const ours = errorOf(() => toAttributeMap({ bad }));
    expect(ours).toBeDefined();
    expect(ours).toBe(errorOf(() => marshall({ bad }, OPTIONS)));
  });
});

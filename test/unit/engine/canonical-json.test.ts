import canonicalize from 'canonicalize';
import fc from 'fast-check';
import { canonicalJson, CanonicalText } from '../../../src/engine/fingerprint.js';
import { fingerprintOf, RequestInvalidError } from '../../../src/index.js';
import { unicodeString } from '../../fuzz/support/generators.js';
import { propertyParameters } from '../../property/support/fast-check-parameters.js';

/** JSON values with unicode keys and strings, integer-like keys and every kind of number. */
const jsonValue = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.constant(null),
    fc.boolean(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.integer(),
    unicodeString(),
    fc.array(tie('value'), { maxLength: 5 }),
    fc.dictionary(
      fc.oneof(
        unicodeString(8),
        fc.nat(20).map(String),
        fc.constantFrom('a', 'B', '10', '9', '\u00e9', '\ud83d\ude00'),
      ),
      tie('value'),
      { maxKeys: 5 },
    ),
  ),
})).value;

describe('canonicalJson', () => {
  it('writes every JSON value exactly as the RFC 8785 reference implementation does', () => {
    fc.assert(
      fc.property(jsonValue, (value) => {
        expect(canonicalJson(value)).toBe(canonicalize(value));
      }),
      propertyParameters(2_000),
    );
  });

  it.each([
    ['an own __proto__ key', '{"__proto__":{"a":1},"b":[{"__proto__":2}]}'],
    ['a toJSON key holding data', '{"toJSON":"not a method","a":{"toJSON":1}}'],
    ['integer-like keys', '{"10":1,"9":2,"a":{"2":[],"10":{}}}'],
    [
      'objects that share no key',
      JSON.stringify(Array.from({ length: 300 }, (_, i) => ({ [`k${i}`]: i, [`j${i}`]: [i] }))),
    ],
    ['backslashes before ud800 and an escaped surrogate pair', '["\\\\ud800","\\\\\\\\ud800","\\ud83d\\ude00"]'],
  ])('writes parsed JSON with %s as the RFC 8785 reference implementation does', (_label, text) => {
    const value = JSON.parse(text);
    expect(canonicalJson(value)).toBe(canonicalize(value));
  });

  it('writes a JSON value the same whatever its key order', () => {
    expect(canonicalJson({ b: [1, { d: 1, c: 2 }], a: 'x', 10: 1, 9: 2 })).toBe(
      '{"10":1,"9":2,"a":"x","b":[1,{"c":2,"d":1}]}',
    );
  });

  it('embeds a canonical text as it is', () => {
    expect(canonicalJson({ body: new CanonicalText('{"a":1}'), method: 'POST' })).toBe(
      '{"body":{"a":1},"method":"POST"}',
    );
  });

  it.each<[string, unknown, unknown]>([
    ['Maps with other entries', new Map([['12A', 'held']]), new Map([['14C', 'held']])],
    ['a Map and an empty object', new Map([['12A', 'held']]), {}],
    ['a Map and an object with its entries', new Map([['a', 1]]), { a: 1 }],
    ['a Map keyed by 1 and one keyed by "1"', new Map([[1, 'x']]), new Map([['1', 'x']])],
    ['a Map holding undefined and one holding null', new Map([['a', undefined]]), new Map([['a', null]])],
    ['Sets with other elements', new Set(['12A']), new Set(['14C'])],
    ['a Set and an array of its elements', new Set([1, 2]), [1, 2]],
    ['a BigInt and its number', 10n, 10],
    ['a BigInt and its digits as a string', 10n, '10'],
    ['two BigInts beyond double precision', 9007199254740993n, 9007199254740992n],
    ['typed arrays of other bytes', new Uint8Array([1, 2]), new Uint8Array([1, 3])],
    ['a typed array and an object with its indexes', new Uint8Array([1, 2]), { 0: 1, 1: 2 }],
    ['a Buffer and its JSON form', Buffer.from('ab'), { type: 'Buffer', data: [97, 98] }],
    ['two typed arrays of one byte content but other types', new Uint8Array([1, 0]), new Uint16Array([1])],
    ['two ArrayBuffers', new Uint8Array([1]).buffer, new Uint8Array([2]).buffer],
    ['two regular expressions', /a/, /b/],
  ])('gives %s different fingerprints', (_label, a, b) => {
    expect(fingerprintOf(a)).not.toBe(fingerprintOf(b));
  });

  it('gives a Map or Set the same fingerprint whatever its insertion order', () => {
    expect(
      fingerprintOf(
        new Map([
          ['a', 1],
          ['b', 2],
        ]),
      ),
    ).toBe(
      fingerprintOf(
        new Map([
          ['b', 2],
          ['a', 1],
        ]),
      ),
    );
    expect(fingerprintOf(new Set([2, 1]))).toBe(fingerprintOf(new Set([1, 2])));
  });

  it.each<[string, unknown]>([
    ['a function', { callback: () => 1 }],
    ['a symbol', [Symbol('s')]],
    ['a WeakMap', new WeakMap()],
    ['a Promise', Promise.resolve(1)],
    ['NaN', { amount: Number.NaN }],
    ['Infinity', Infinity],
    ['a lone surrogate', { note: '\ud800' }],
    [
      'a cycle',
      (() => {
        const node: Record<string, unknown> = {};
        node.self = node;
        return node;
      })(),
    ],
  ])('refuses %s with RequestInvalidError', (_label, value) => {
    expect(() => fingerprintOf(value)).toThrow(RequestInvalidError);
  });

  describe('an object whose state is not enumerable', () => {
    class Money {
      readonly #cents: number;
      constructor(cents: number) {
        this.#cents = cents;
      }
      get cents(): number {
        return this.#cents;
      }
    }

    it('is refused with RequestInvalidError naming where it is, rather than fingerprinted as {}', () => {
      expect(() => fingerprintOf({ id: 'o-1', lines: [{ amount: new Money(100) }] })).toThrow(
        /The Money at \$\.lines\[0\]\.amount has no enumerable state to compare/,
      );
      expect(() => fingerprintOf({ id: 'o-1', amount: new Money(100) })).toThrow(RequestInvalidError);
    });

    it('is fingerprinted by what its toJSON returns when it has one', () => {
      class Cents extends Money {
        toJSON() {
          return { cents: this.cents };
        }
      }
      expect(fingerprintOf({ amount: new Cents(100) })).not.toBe(fingerprintOf({ amount: new Cents(99_900) }));
      expect(fingerprintOf({ amount: new Cents(100) })).toBe(fingerprintOf({ amount: { cents: 100 } }));
    });

    it('leaves empty plain objects and instances with enumerable state alone', () => {
      class Point {
        constructor(
          readonly x: number,
          readonly y: number,
        ) {}
      }
      expect(fingerprintOf({})).toBe(fingerprintOf(Object.create(null)));
      expect(fingerprintOf(new Point(1, 2))).not.toBe(fingerprintOf(new Point(1, 3)));
    });
  });
});

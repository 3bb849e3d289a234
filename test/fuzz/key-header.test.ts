import fc from 'fast-check';
import { MAX_KEY_LENGTH } from '../../src/core/index.js';
import { readKeyHeader } from '../../src/http/index.js';
import { propertyParameters } from '../property/support/fast-check-parameters.js';
import { anyString, headerValue, keyHeaderName, padding, quoted, validKey } from './support/generators.js';
import { guardedCounter } from './support/http-harness.js';

const HEADER = 'Idempotency-Key';
const isVisibleAscii = (key: string) => [...key].every((c) => c.charCodeAt(0) >= 0x21 && c.charCodeAt(0) <= 0x7e);

/** Header maps as events carry them: the key header under any casing, other headers, odd value types. */
const headers = fc.dictionary(
  fc.oneof(keyHeaderName, fc.string({ maxLength: 20 })),
  fc.oneof(
    headerValue,
    fc.constant(undefined),
    fc.constant(null as unknown as string),
    fc.integer() as unknown as fc.Arbitrary<string>,
  ),
  { maxKeys: 4 },
);
const multiValueHeaders = fc.option(
  fc.dictionary(fc.oneof(keyHeaderName, fc.string({ maxLength: 20 })), fc.array(headerValue, { maxLength: 3 }), {
    maxKeys: 3,
  }),
  { nil: undefined },
);

describe('readKeyHeader on generated headers', () => {
  it('never throws, and accepts only keys of 1–255 visible ASCII characters', () => {
    fc.assert(
      fc.property(headers, multiValueHeaders, (single, multi) => {
        const reading = readKeyHeader(single, HEADER, multi);

        expect(['missing', 'invalid', 'present']).toContain(reading.kind);
        if (reading.kind === 'present') {
          expect(reading.key.length).toBeGreaterThanOrEqual(1);
          expect(reading.key.length).toBeLessThanOrEqual(MAX_KEY_LENGTH);
          expect(isVisibleAscii(reading.key)).toBe(true);
        }
        if (reading.kind === 'invalid') expect(reading.reason).toContain(HEADER);
      }),
      propertyParameters(2_000),
    );
  });

  it('reads a valid key the same whether bare or RFC 8941-quoted, padded with spaces or tabs, under any header-name casing', () => {
    fc.assert(
      fc.property(
        // A bare key is one token: no leading quote, no comma (list members, or header lines a gateway joined).
        validKey.filter((key) => !key.startsWith('"') && !key.includes(',')),
        fc.boolean(),
        padding,
        padding,
        keyHeaderName,
        (key, asQuoted, before, after, name) => {
          const reading = readKeyHeader({ [name]: before + (asQuoted ? quoted(key) : key) + after }, HEADER);

          expect(reading).toEqual({ kind: 'present', key });
        },
      ),
      propertyParameters(1_000),
    );
  });

  it('refuses a bare value holding a comma: two keys, never one', () => {
    fc.assert(
      fc.property(validKey, validKey, fc.constantFrom(',', ', ', ' ,'), (first, second, separator) => {
        fc.pre(!first.startsWith('"'));
        const reading = readKeyHeader({ 'idempotency-key': `${first}${separator}${second}` }, HEADER);

        expect(reading.kind).toBe('invalid');
      }),
      propertyParameters(1_000),
    );
  });

  it('reads any valid key, a leading quote or a comma included, through its quoted form', () => {
    fc.assert(
      fc.property(validKey, (key) => {
        expect(readKeyHeader({ 'idempotency-key': quoted(key) }, HEADER)).toEqual({ kind: 'present', key });
      }),
      propertyParameters(500),
    );
  });

  it('refuses a key holding any character outside visible ASCII, bare or quoted', () => {
    const outside = fc
      .integer({ min: 0, max: 0xffff })
      .filter((code) => code < 0x21 || code > 0x7e)
      .map((code) => String.fromCharCode(code));
    fc.assert(
      fc.property(validKey, outside, fc.nat(), fc.boolean(), (key, bad, at, asQuoted) => {
        const position = 1 + (at % key.length);
        const tainted = `a${key.slice(0, position)}${bad}${key.slice(position)}z`;

        const reading = readKeyHeader({ 'idempotency-key': asQuoted ? quoted(tainted) : tainted }, HEADER);

        expect(reading.kind).toBe('invalid');
      }),
      propertyParameters(1_000),
    );
  });

  it('refuses a quoted value that is not a well-formed RFC 8941 string', () => {
    const malformed = fc.oneof(
      validKey.map((key) => `"${key.replace(/[\\"]/g, '')}`),
      fc.tuple(validKey, validKey).map(([a, b]) => `${quoted(a)}${b}`),
      fc
        .tuple(validKey, fc.constantFrom('\\a', '\\n', '\\u0041', '\\'))
        .map(([key, escape]) => `"${key.replace(/[\\"]/g, '')}${escape}"`),
    );
    fc.assert(
      fc.property(malformed, (value) => {
        expect(readKeyHeader({ 'idempotency-key': value }, HEADER).kind).toBe('invalid');
      }),
      propertyParameters(1_000),
    );
  });

  it('refuses a key header sent twice with different values (multi-value headers)', () => {
    fc.assert(
      fc.property(validKey, validKey, (a, b) => {
        fc.pre(a !== b);
        expect(readKeyHeader({ 'idempotency-key': b }, HEADER, { 'Idempotency-Key': [a, b] }).kind).toBe('invalid');
      }),
      propertyParameters(500),
    );
  });

  it('refuses a key header present under two casings with different values', () => {
    fc.assert(
      fc.property(validKey, validKey, keyHeaderName, keyHeaderName, (a, b, first, second) => {
        fc.pre(a !== b && first !== second);
        expect(readKeyHeader({ [first]: a, [second]: b }, HEADER).kind).toBe('invalid');
      }),
      propertyParameters(500),
    );
  });

  it('treats a missing, undefined or null key header as missing, whatever else is sent', () => {
    fc.assert(
      fc.property(
        fc.dictionary(
          fc.string({ maxLength: 20 }).filter((name) => name.toLowerCase() !== 'idempotency-key'),
          anyString(),
        ),
        fc.constantFrom(undefined, null),
        (others, absent) => {
          expect(readKeyHeader({ ...others, 'Idempotency-Key': absent as unknown as string }, HEADER)).toEqual({
            kind: 'missing',
          });
        },
      ),
      propertyParameters(300),
    );
  });

  it('gives two different keys two different records, even when they differ only by separator or escape characters', async () => {
    const separatorHeavy = fc.string({
      unit: fc.constantFrom('#', '%', '2', '3', '5', 'a', '"', '\\'),
      minLength: 1,
      maxLength: 8,
    });
    await fc.assert(
      fc.asyncProperty(separatorHeavy, separatorHeavy, async (a, b) => {
        fc.pre(a !== b);
        const { send, runs } = guardedCounter();

        await send({ method: 'POST', keyHeader: { name: 'idempotency-key', value: quoted(a) }, body: '{"amount":1}' });
        const other = await send({
          method: 'POST',
          keyHeader: { name: 'idempotency-key', value: quoted(b) },
          body: '{"amount":1}',
        });

        expect(other.headers?.['Idempotent-Replayed']).toBeUndefined();
        expect(runs).toHaveLength(2);
      }),
      propertyParameters(500),
    );
  });
});

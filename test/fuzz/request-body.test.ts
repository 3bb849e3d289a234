import fc from 'fast-check';
import { propertyParameters } from '../property/support/fast-check-parameters.js';
import {
  anyString,
  codeUnit,
  headerValue,
  keyHeaderName,
  plainJsonValue,
  render,
  renderingChoices,
  unicodeString,
  validKey,
} from './support/generators.js';
import {
  guardedCounter,
  isReplayOf,
  problemTypeOf,
  SEQUENTIAL_PROBLEMS,
  type GeneratedRequest,
} from './support/http-harness.js';

const char = (min: number, max: number) => fc.integer({ min, max }).map((code) => String.fromCharCode(code));
const digits = (minLength: number, maxLength: number) => fc.string({ unit: char(0x30, 0x39), minLength, maxLength });

/** Decimal literals from tiny to huge: long mantissas and exponents far outside what a double holds. */
const decimalLiteral = fc
  .tuple(
    fc.constantFrom('', '-'),
    digits(1, 30),
    fc.option(digits(1, 30), { nil: undefined }),
    fc.option(
      fc.oneof(
        fc.integer({ min: -30, max: 30 }),
        fc.integer({ min: -500, max: -290 }),
        fc.integer({ min: 290, max: 500 }),
      ),
      { nil: undefined },
    ),
  )
  .map(
    ([sign, whole, fraction, exponent]) =>
      `${sign}${whole.replace(/^0+(?=\d)/, '')}${fraction === undefined ? '' : `.${fraction}`}${exponent === undefined ? '' : `e${exponent}`}`,
  );

/** Nesting of arrays and objects, up to well past the guard's limit. */
const nested = fc
  .tuple(fc.integer({ min: 1, max: 200 }), fc.boolean())
  .map(([depth, objects]) =>
    objects ? '{"a":'.repeat(depth) + '1' + '}'.repeat(depth) : '['.repeat(depth) + ']'.repeat(depth),
  );

/** Objects with a key repeated, written the same or through escapes. */
const duplicateKeys = fc
  .tuple(fc.string({ unit: char(0x61, 0x7a), minLength: 1, maxLength: 5 }), fc.boolean())
  .map(([key, escaped]) => {
    const again = escaped ? [...key].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('') : key;
    return `{"${key}":1,"other":[1,2],"${again}":1000}`;
  });

/** Byte sequences that are not UTF-8: overlong forms, encoded surrogates, stray continuation bytes, truncated sequences, 0xFF. */
const invalidUtf8 = fc
  .array(
    fc.oneof(
      fc.constantFrom(
        [0xc0, 0x80],
        [0xed, 0xa0, 0x80],
        [0x80],
        [0xff],
        [0xf8, 0x88, 0x80, 0x80, 0x80],
        [0xe2, 0x82],
        [0xf4, 0x90, 0x80, 0x80],
      ),
      fc.integer({ min: 0x20, max: 0x7e }).map((b) => [b]),
    ),
    { minLength: 1, maxLength: 8 },
  )
  .filter((parts) => parts.some((part) => part.length > 1 || part[0] >= 0x80))
  .map((parts) => Buffer.from(parts.flat()));

/** A JSON-looking body carrying `bytes` inside a string, base64-encoded as API Gateway delivers binary bodies. */
const jsonWithBytes = (bytes: Buffer) =>
  Buffer.concat([Buffer.from('{"note":"'), bytes, Buffer.from('"}')]).toString('base64');

/** Request bodies as they reach a handler: JSON of any shape, broken JSON, text, bytes. */
const body = fc.oneof(
  plainJsonValue.chain((value) => renderingChoices.map((choices) => ({ body: render(value, choices) }))),
  decimalLiteral.map((n) => ({ body: `{"amount":${n}}` })),
  nested.map((text) => ({ body: text })),
  duplicateKeys.map((text) => ({ body: text })),
  fc
    .constantFrom(
      '"\\ud800"',
      '{"a":"\\udfff"}',
      '["\\ud83d\\ude00"]',
      '{"\\ud800":1}',
      '1e400',
      '-1e400',
      '1e-400',
      '{"a":NaN}',
      '{',
      '',
      'null',
      '[]',
    )
    .map((text) => ({ body: text })),
  anyString(60).map((text) => ({ body: text })),
  fc
    .uint8Array({ maxLength: 64 })
    .map((bytes) => ({ body: Buffer.from(bytes).toString('base64'), isBase64Encoded: true })),
  invalidUtf8.map((bytes) => ({ body: jsonWithBytes(bytes), isBase64Encoded: true })),
  fc.constant({ body: undefined }),
);

/** Requests whose key header and method vary too, so each answer path is met. */
const request: fc.Arbitrary<GeneratedRequest> = fc
  .record({
    method: fc.constantFrom('POST', 'POST', 'PUT', 'PATCH', 'DELETE', 'GET'),
    keyHeader: fc.option(fc.record({ name: keyHeaderName, value: fc.oneof(validKey, headerValue) }), {
      nil: undefined,
    }),
    query: fc.option(fc.dictionary(unicodeString(8), unicodeString(8), { maxKeys: 2 }), { nil: undefined }),
    body,
  })
  .map(({ body: generated, ...rest }) => ({ ...rest, ...generated }));

/** A reference canonical form: values are equal exactly when these strings are. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object')
    return `{${Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonical((value as Record<string, unknown>)[key])}`)
      .join(',')}}`;
  return JSON.stringify(value);
}

/** Pairs of JSON values one edit apart: a changed leaf, a changed type, an extra member, a reordered array. */
const nearbyValues = fc.oneof(
  fc
    .tuple(plainJsonValue, fc.integer({ min: -1e6, max: 1e6 }), fc.integer({ min: 1, max: 3 }))
    .map(([rest, n, step]) => [
      { rest, amount: n },
      { rest, amount: n + step },
    ]),
  fc.tuple(plainJsonValue, unicodeString(10), unicodeString(1)).map(([rest, text, extra]) => [
    { rest, note: text },
    { rest, note: text + (extra || 'x') },
  ]),
  fc
    .tuple(
      plainJsonValue,
      fc.constantFrom<[unknown, unknown]>(
        [1, '1'],
        [1, true],
        [0, false],
        [null, false],
        [[], {}],
        ['', null],
        [1, 1.5],
        [
          [1, 2],
          [2, 1],
        ],
      ),
    )
    .map(([rest, [a, b]]) => [
      { rest, value: a },
      { rest, value: b },
    ]),
  plainJsonValue.map((value) => [{ value }, { value, extra: null }]),
);

/** Exact decimal value of a literal, as (digits, exponent) with no leading or trailing zeros. */
function decimalValue(literal: string): string {
  const [mantissa, exponent = '0'] = literal.toLowerCase().split('e');
  const negative = mantissa.startsWith('-');
  const [whole, fraction = ''] = mantissa.replace('-', '').split('.');
  const allDigits = (whole + fraction).replace(/^0+/, '');
  if (allDigits === '') return '0';
  const trimmed = allDigits.replace(/0+$/, '');
  const scale = Number(exponent) - fraction.length + (allDigits.length - trimmed.length);
  return `${negative ? '-' : ''}${trimmed}e${scale}`;
}

describe('httpIdempotency on generated requests (MemoryJournal)', () => {
  it('answers every request with a replayable 2xx or a documented 4xx problem, twice the same, never a 5xx or a crash', async () => {
    await fc.assert(
      fc.asyncProperty(request, async (generated) => {
        const { send, runs } = guardedCounter();

        const first = await send(generated);
        const second = await send(generated);

        expect(first.statusCode).toBeLessThan(500);
        if (first.statusCode >= 400) {
          expect(SEQUENTIAL_PROBLEMS[problemTypeOf(first) ?? '']).toBe(first.statusCode);
          expect(second).toEqual(first);
          expect(runs).toHaveLength(0);
        } else if (runs[0].guarded) {
          expect(isReplayOf(second, first)).toBe(true);
          expect(runs).toHaveLength(1);
        } else {
          expect(generated.keyHeader).toBeUndefined();
          expect(['POST', 'PATCH']).not.toContain(generated.method);
        }
      }),
      propertyParameters(1_500),
    );
  });

  it('replays a JSON body written again with other member order, white space, escapes and number forms', async () => {
    await fc.assert(
      fc.asyncProperty(plainJsonValue, renderingChoices, renderingChoices, async (value, a, b) => {
        const { send, runs } = guardedCounter();

        const first = await send({
          method: 'POST',
          keyHeader: { name: 'idempotency-key', value: 'same-value' },
          body: render(value, a),
        });
        const second = await send({
          method: 'POST',
          keyHeader: { name: 'idempotency-key', value: 'same-value' },
          body: render(value, b),
        });

        expect(first.statusCode).toBe(201);
        expect(isReplayOf(second, first)).toBe(true);
        expect(runs).toHaveLength(1);
      }),
      propertyParameters(1_000),
    );
  });

  it('never replays a JSON body to another one that differs in value: 422', async () => {
    await fc.assert(
      fc.asyncProperty(nearbyValues, renderingChoices, async ([a, b], choices) => {
        fc.pre(canonical(a) !== canonical(b));
        const { send, runs } = guardedCounter();

        await send({
          method: 'POST',
          keyHeader: { name: 'idempotency-key', value: 'other-value' },
          body: render(a, choices),
        });
        const second = await send({
          method: 'POST',
          keyHeader: { name: 'idempotency-key', value: 'other-value' },
          body: render(b, choices),
        });

        expect(second.statusCode).toBe(422);
        expect(problemTypeOf(second)).toBe('urn:idemkit:problem:idempotency-key-reused');
        expect(runs).toHaveLength(1);
      }),
      propertyParameters(1_000),
    );
  });

  it('never replays a body to another whose number differs as a decimal, however large or small', async () => {
    await fc.assert(
      fc.asyncProperty(decimalLiteral, decimalLiteral, async (a, b) => {
        fc.pre(decimalValue(a) !== decimalValue(b));
        const { send } = guardedCounter();

        const first = await send({
          method: 'POST',
          keyHeader: { name: 'idempotency-key', value: 'decimal' },
          body: `{"amount":${a}}`,
        });
        const second = await send({
          method: 'POST',
          keyHeader: { name: 'idempotency-key', value: 'decimal' },
          body: `{"amount":${b}}`,
        });

        expect(second.headers?.['Idempotent-Replayed']).toBeUndefined();
        if (first.statusCode === 201) expect([422, 400]).toContain(second.statusCode);
      }),
      propertyParameters(2_000),
    );
  });

  it('replays a body with a number a double holds exactly, written with up to 17 digits, when its members are reordered', async () => {
    const exactDouble = fc.double({ noNaN: true, noDefaultInfinity: true }).filter((n) => !Object.is(n, -0));
    await fc.assert(
      fc.asyncProperty(exactDouble, async (n) => {
        const { send, runs } = guardedCounter();

        const first = await send({
          method: 'POST',
          keyHeader: { name: 'idempotency-key', value: 'double' },
          body: `{"amount":${JSON.stringify(n)},"currency":"EUR"}`,
        });
        const second = await send({
          method: 'POST',
          keyHeader: { name: 'idempotency-key', value: 'double' },
          body: `{"currency":"EUR","amount":${JSON.stringify(n)}}`,
        });

        expect(first.statusCode).toBe(201);
        expect(isReplayOf(second, first)).toBe(true);
        expect(runs).toHaveLength(1);
      }),
      propertyParameters(500),
    );
  });

  it('never replays a base64 body holding invalid UTF-8 to another with other bytes', async () => {
    await fc.assert(
      fc.asyncProperty(invalidUtf8, invalidUtf8, async (a, b) => {
        fc.pre(!a.equals(b));
        const { send, runs } = guardedCounter();

        const first = await send({
          method: 'POST',
          keyHeader: { name: 'idempotency-key', value: 'bytes' },
          body: jsonWithBytes(a),
          isBase64Encoded: true,
        });
        const second = await send({
          method: 'POST',
          keyHeader: { name: 'idempotency-key', value: 'bytes' },
          body: jsonWithBytes(b),
          isBase64Encoded: true,
        });

        expect(first.statusCode).toBe(201);
        expect(problemTypeOf(second)).toBe('urn:idemkit:problem:idempotency-key-reused');
        expect(runs).toHaveLength(1);
      }),
      propertyParameters(500),
    );
  });

  it('never replays a text body to another text that differs in any UTF-16 code unit', async () => {
    const surrogateOrNot = fc.oneof(char(0xd800, 0xdfff), char(0x20, 0x7e), codeUnit);
    await fc.assert(
      fc.asyncProperty(
        fc.string({ unit: surrogateOrNot, minLength: 1, maxLength: 12 }),
        fc.nat(),
        surrogateOrNot,
        async (text, at, replacement) => {
          const position = at % text.length;
          const other = text.slice(0, position) + replacement + text.slice(position + 1);
          fc.pre(other !== text);
          const { send, runs } = guardedCounter();

          const first = await send({
            method: 'POST',
            keyHeader: { name: 'idempotency-key', value: 'text' },
            body: `text:${text}`,
          });
          const second = await send({
            method: 'POST',
            keyHeader: { name: 'idempotency-key', value: 'text' },
            body: `text:${other}`,
          });

          expect(second.headers?.['Idempotent-Replayed']).toBeUndefined();
          if (first.statusCode === 201) {
            expect(['urn:idemkit:problem:idempotency-key-reused', 'urn:idemkit:problem:invalid-request']).toContain(
              problemTypeOf(second),
            );
            expect(runs).toHaveLength(1);
          }
        },
      ),
      propertyParameters(1_000),
    );
  });
});

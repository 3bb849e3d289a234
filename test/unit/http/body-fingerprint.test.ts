import canonicalize from 'canonicalize';
import fc from 'fast-check';
import { createHash } from 'node:crypto';
import { fingerprintOf } from '../../../src/engine/fingerprint.js';
import { viewHttpEvent } from '../../../src/http/http-event.js';
import { inspectJson, defaultRequestFingerprint } from '../../../src/http/request-fingerprint.js';
import { RequestInvalidError } from '../../../src/index.js';
import { propertyParameters } from '../../property/support/fast-check-parameters.js';
import { anyString, plainJsonValue, render, renderingChoices, unicodeString } from '../../fuzz/support/generators.js';

const sha256 = (data: string | Uint8Array) => createHash('sha256').update(data).digest('hex');
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * The body fingerprint as first specified, one step at a time: UTF-8 bytes, strict decoding,
 * JSON.parse, the exact scan of every token, the RFC 8785 reference implementation, SHA-256.
 * Records already stored hold fingerprints made this way, so the middleware must keep giving
 * every body exactly this value (or the same refusal).
 */
function referenceFingerprint(body: string, isBase64Encoded: boolean): string | 'refused' {
  const envelope = (content: unknown) => ({ method: 'POST', path: '/payments', query: {}, body: content });
  if (body === '') return sha256(canonicalize(envelope(null))!);
  if (!isBase64Encoded && LONE_SURROGATE.test(body)) return 'refused';
  const bytes = isBase64Encoded ? Buffer.from(body, 'base64') : Buffer.from(body, 'utf8');
  let text: string;
  let parsed: unknown;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    parsed = JSON.parse(text);
  } catch {
    return sha256(canonicalize(envelope({ raw: sha256(bytes) }))!);
  }
  const shape = inspectJson(text);
  if (shape.problem) return 'refused';
  if (shape.lossyNumbers) return sha256(canonicalize(envelope({ raw: sha256(bytes) }))!);
  try {
    return sha256(canonicalize(envelope({ json: parsed }))!);
  } catch {
    return 'refused';
  }
}

function middlewareFingerprint(body: string, isBase64Encoded: boolean): string | 'refused' {
  const event = {
    version: '2.0',
    routeKey: 'POST /payments',
    rawPath: '/payments',
    headers: {},
    requestContext: { http: { method: 'POST', path: '/payments' } },
    body,
    isBase64Encoded,
  };
  try {
    return fingerprintOf(defaultRequestFingerprint(viewHttpEvent(event)));
  } catch (error) {
    if (error instanceof RequestInvalidError) return 'refused';
    throw error;
  }
}

const char = (min: number, max: number) => fc.integer({ min, max }).map((code) => String.fromCharCode(code));
const key = fc.oneof(
  fc.string({ unit: char(0x61, 0x63), minLength: 1, maxLength: 2 }),
  fc.constantFrom('__proto__', 'toJSON', '10', '9', 'a:b', '\\u003a'),
);
const scalar = fc.oneof(
  fc.constantFrom(
    '1',
    '-0',
    '1.50',
    '1e2',
    '12345678901234567',
    '0.1000000000000000001',
    '9007199254740993',
    '1E-400',
    '"x:y"',
    '"\\u003a"',
    '"\\ud800"',
    '"\\ud83d\\ude00"',
    'null',
    'true',
    '"e1"',
  ),
  fc.integer().map(String),
  unicodeString(6).map((text) => JSON.stringify(text)),
);
/** JSON texts built token by token, so keys repeat, numbers run long and escapes hide colons and surrogates. */
const tokenText: fc.Arbitrary<string> = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    scalar,
    fc.array(tie('value'), { maxLength: 4 }).map((items) => `[${items.join(',')}]`),
    fc
      .array(fc.tuple(key, tie('value')), { maxLength: 4 })
      .map((members) => `{${members.map(([k, v]) => `"${k}": ${v}`).join(',')}}`),
  ),
})).value as fc.Arbitrary<string>;
const nested = fc
  .tuple(fc.integer({ min: 60, max: 70 }), fc.boolean(), fc.boolean())
  .map(([depth, objects, duplicate]) =>
    objects
      ? '{"a":'.repeat(depth) + (duplicate ? '{"k":1,"k":2}' : '1') + '}'.repeat(depth)
      : '['.repeat(depth) + ']'.repeat(depth),
  );

const body = fc.oneof(
  plainJsonValue.chain((value) =>
    renderingChoices.map((choices) => ({ body: render(value, choices), isBase64Encoded: false })),
  ),
  tokenText.map((text) => ({ body: text, isBase64Encoded: false })),
  nested.map((text) => ({ body: text, isBase64Encoded: false })),
  anyString(40).map((text) => ({ body: text, isBase64Encoded: false })),
  tokenText.map((text) => ({ body: Buffer.from(text).toString('base64'), isBase64Encoded: true })),
  fc
    .uint8Array({ maxLength: 32 })
    .map((bytes) => ({ body: Buffer.from(bytes).toString('base64'), isBase64Encoded: true })),
);

describe('the default body fingerprint', () => {
  it('is for every body exactly the fingerprint, or the refusal, of the step-by-step reference', () => {
    fc.assert(
      fc.property(body, ({ body: text, isBase64Encoded }) => {
        expect(middlewareFingerprint(text, isBase64Encoded)).toBe(referenceFingerprint(text, isBase64Encoded));
      }),
      propertyParameters(5_000),
    );
  });

  it.each([
    ['a duplicate key hidden behind a colon in a string', '{"a":"x:y","a":"z"}'],
    ['a duplicate key whose surviving value holds more colons', '{"a":"x","a":"y:z"}'],
    ['a duplicate key next to an escaped colon', '{"a":1,"a":2,"b":"\\u003a"}'],
    ['a duplicate key deep inside', '{"items":[{"sku":"1","sku":"2"}]}'],
    ['a duplicate __proto__ key', '{"__proto__":1,"__proto__":2}'],
    ['an escaped lone surrogate', '{"a":"\\ud800"}'],
    ['an escaped lone surrogate after an escaped backslash', String.raw`{"a":"\\\ud800"}`],
    ['nesting past 64 levels', `${'['.repeat(65)}${']'.repeat(65)}`],
  ])('refuses %s', (_label, text) => {
    expect(middlewareFingerprint(text, false)).toBe('refused');
  });
});

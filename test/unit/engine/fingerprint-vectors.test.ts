import middy from '@middy/core';
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import canonicalize from 'canonicalize';
import { createHash } from 'node:crypto';
import {
  defaultHttpFingerprint,
  fingerprintOf,
  httpIdempotency,
  makeIdempotent,
  MemoryJournal,
  NO_TENANT,
} from '../../../src/index.js';
import { requestPk } from '../../../src/entries/journal.js';

// The fingerprint is stored with every record and compared on every retry: if its form changes,
// each retry in flight across a deploy meets a record it no longer matches and gets a 422. These
// vectors are written out, not computed by the code under test; a change here is a change of the
// stored form, and needs a migration story, not new numbers.

interface Vector {
  readonly label: string;
  readonly input: unknown;
  /** RFC 8785 text of the input, as written by hand. */
  readonly canonical: string;
  readonly hex: string;
}

const JSON_VECTORS: readonly Vector[] = [
  {
    label: 'an object',
    input: { b: 1, a: 2 },
    canonical: '{"a":2,"b":1}',
    hex: 'd3626ac30a87e6f7a6428233b3c68299976865fa5508e4267c5415c76af7a772',
  },
  {
    label: 'the same object, its keys in another order',
    input: { a: 2, b: 1 },
    canonical: '{"a":2,"b":1}',
    hex: 'd3626ac30a87e6f7a6428233b3c68299976865fa5508e4267c5415c76af7a772',
  },
  {
    label: 'nested objects, each sorted',
    input: { z: { y: 1, x: [{ d: 4, c: 3 }] }, a: null },
    canonical: '{"a":null,"z":{"x":[{"c":3,"d":4}],"y":1}}',
    hex: '805080af5c1aff92b8efc4b09a12f9697e72c914c4927db9bb3584454327663b',
  },
  {
    // Keys sort by UTF-16 code units: the emoji (U+D83D…) before U+FB33, control characters escaped.
    label: 'unicode keys and values',
    input: { '\u20ac': '\u00e9', a: '\ud83d\ude00', '\u00e4': '\u0000\t', '\ufb33': 1, '\ud83d\ude00': 2 },
    canonical: '{"a":"\ud83d\ude00","\u00e4":"\\u0000\\t","\u20ac":"\u00e9","\ud83d\ude00":2,"\ufb33":1}',
    hex: '81dc8c781038771320810d75f3bfa9f7416721b9a3b1e4e4de760b4830da6d43',
  },
  {
    label: 'numbers as ECMAScript writes them',
    input: [1.0, 1e21, -0, 0.1, 1e-7, 100, -1.5e-10, 2 ** 53],
    canonical: '[1,1e+21,0,0.1,1e-7,100,-1.5e-10,9007199254740992]',
    hex: '24a4cb1878ccd8e778ac6ed6f1c6b8fab664f782c877099ef3669f83a86f7537',
  },
  {
    label: 'nested arrays',
    input: [[], [[null]], [true, false, 'x', [{}]]],
    canonical: '[[],[[null]],[true,false,"x",[{}]]]',
    hex: 'c99e1d4b4dc21b0f0e3d0c5527f68b7546b53dc53e12f0709d6222596a8ff590',
  },
  {
    label: 'a string with escapes',
    input: 'line\n"quoted"\\ \u001f /',
    canonical: '"line\\n\\"quoted\\"\\\\ \\u001f /"',
    hex: '2bf240c5d3e6b8b9327660d3ae7973bf4b95d3a1e9af99005551505f7dd780a8',
  },
  {
    label: 'null',
    input: null,
    canonical: 'null',
    hex: '74234e98afe7498fb5daf1f36ac2d78acc339464f950703b8c019892f982b90b',
  },
];

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

const context = {
  awsRequestId: 'request-1',
  functionName: 'payments',
  getRemainingTimeInMillis: () => 10_000,
} as unknown as Context;

/** An HTTP API (v2) request as API Gateway sends it; written out so no helper's defaults move the vector. */
const PAYMENT_REQUEST = {
  version: '2.0',
  routeKey: 'POST /payments',
  rawPath: '/payments',
  rawQueryString: 'dryRun=false&currency=EUR',
  headers: { 'content-type': 'application/json', 'idempotency-key': 'key-0001' },
  queryStringParameters: { dryRun: 'false', currency: 'EUR' },
  requestContext: {
    accountId: '123456789012',
    apiId: 'api',
    domainName: 'api.example.com',
    domainPrefix: 'api',
    http: { method: 'POST', path: '/payments', protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: 'test' },
    requestId: 'r-1',
    routeKey: 'POST /payments',
    stage: '$default',
    time: '02/Dec/2026:04:00:00 +0000',
    timeEpoch: 1795000000000,
  },
  body: '{ "currency": "EUR", "amount": 1250, "note": "caf\\u00e9" }',
  isBase64Encoded: false,
} as unknown as APIGatewayProxyEventV2;

describe('the stored fingerprint', () => {
  it.each(JSON_VECTORS)('of $label is the SHA-256 of its canonical JSON', ({ input, hex }) => {
    expect(fingerprintOf(input)).toBe(hex);
  });

  it.each(JSON_VECTORS)('vector "$label" agrees with an independent RFC 8785 writer', ({ input, canonical, hex }) => {
    expect(canonicalize(input)).toBe(canonical);
    expect(sha256(canonical)).toBe(hex);
  });

  it('of a Map is the SHA-256 of its sorted entries, in a form no JSON text has', () => {
    const hex = 'd99b8c180d888cb756b3786bd5ea5617512610514d5ede448078ceceea848942';

    expect(
      fingerprintOf(
        new Map([
          ['b', 1],
          ['a', 2],
        ]),
      ),
    ).toBe(hex);
    expect(sha256('#map[["a",2],["b",1]]')).toBe(hex);
  });

  it("of an HTTP API request under httpIdempotency's default covers method, path, query and the body by value", async () => {
    // The body's whitespace, member order and \u escape do not count; its values do.
    const canonical =
      '{"body":{"json":{"amount":1250,"currency":"EUR","note":"caf\u00e9"}},"method":"POST","path":"/payments",' +
      '"query":{"currency":"EUR","dryRun":"false"}}';
    const hex = 'dee65f8e65e5c1f2d1be76d6f0f650d45f5ced292d16c040037ae7850ce34784';
    const journal = new MemoryJournal();
    const handler = middy(async () => ({ statusCode: 201, body: '{}' })).use(httpIdempotency({ journal }));

    await handler(PAYMENT_REQUEST, context);

    const record = await journal.get(requestPk(NO_TENANT, 'POST /payments', 'key-0001'));
    expect(record?.fingerprint).toBe(hex);
    expect(fingerprintOf(defaultHttpFingerprint(PAYMENT_REQUEST))).toBe(hex);
    expect(sha256(canonical)).toBe(hex);
  });

  it("of a makeIdempotent input is the SHA-256 of the whole input's canonical JSON", async () => {
    const canonical = '{"lines":[{"qty":2,"sku":"A-1"},{"qty":1,"sku":"B-2"}],"orderId":"o-1"}';
    const hex = '01495318343a030d8a35b3fcd5c82b77bc220e297cc3e3de60b01aef6647cdd3';
    const journal = new MemoryJournal();
    const reserveStock = makeIdempotent(async (_input: { orderId: string; lines: unknown[] }) => ({ reserved: true }), {
      journal,
      operation: 'reserve-stock',
      key: (input) => input.orderId,
    });

    await reserveStock(
      {
        orderId: 'o-1',
        lines: [
          { sku: 'A-1', qty: 2 },
          { qty: 1, sku: 'B-2' },
        ],
      },
      context,
    );

    const record = await journal.get(requestPk(NO_TENANT, 'reserve-stock', 'o-1'));
    expect(record?.fingerprint).toBe(hex);
    expect(sha256(canonical)).toBe(hex);
  });
});

import { IdempotencyConfig } from '@aws-lambda-powertools/idempotency';
import { DynamoDBPersistenceLayer } from '@aws-lambda-powertools/idempotency/dynamodb';
import fc from 'fast-check';
import { InvalidOptionsError } from '../../../src/index.js';
import { fromPowertools } from '../../../src/entries/migration.js';
import {
  loadPowertoolsSearch,
  powertoolsPayloadHash,
  powertoolsRecordId,
  resolvePowertoolsSource,
  type PowertoolsSearch,
  type PowertoolsSource,
} from '../../../src/migration/index.js';

/** Powertools' own key derivation, through its persistence layer configured as a middleware configures it. */
function powertoolsLayer(config: ConstructorParameters<typeof IdempotencyConfig>[0], keyPrefix = 'create-payment') {
  const layer = new DynamoDBPersistenceLayer({ tableName: 'not-called' });
  layer.configure({ config: new IdempotencyConfig(config), keyPrefix });
  return layer as unknown as {
    getHashedIdempotencyKey(data: unknown): string;
    getHashedPayload(data: unknown): string;
  };
}

/** A validated source with its expressions compiled, as a guard's first lookup has it. */
async function source(options: Record<string, unknown>): Promise<[PowertoolsSource, PowertoolsSearch]> {
  const resolved = resolvePowertoolsSource('test', {
    tableName: 'legacy',
    keyPrefix: 'create-payment',
    ...options,
  } as never);
  return [resolved, await loadPowertoolsSearch('test', resolved)];
}

// Keys that differ only in case and nest at every depth: what the case-insensitive deep sort must order as Powertools does.
const jsonValue = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.string(),
    fc.integer(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.boolean(),
    fc.constant(null),
    tie('array'),
    tie('object'),
  ),
  array: fc.array(tie('value'), { maxLength: 4 }),
  object: fc.dictionary(fc.constantFrom('a', 'A', 'b', 'B', 'id', 'Id', 'amount', 'z', '_', '1'), tie('value'), {
    maxKeys: 6,
  }),
})).object;

describe('Powertools key derivation', () => {
  // Powertools warns about every all-falsy selection it still hashes; the hashes are what is compared here.
  beforeEach(() => jest.spyOn(console, 'warn').mockImplementation(() => undefined));
  afterEach(() => jest.restoreAllMocks());

  it('gives every JSON body the id Powertools gives it (JMESPath, prefix, deep sort, md5 base64)', async () => {
    const layer = powertoolsLayer({ eventKeyJmesPath: 'powertools_json(body)' });
    const ours = await source({ eventKeyJmesPath: 'powertools_json(body)' });
    fc.assert(
      fc.property(jsonValue, (body) => {
        const event = { body: JSON.stringify(body) };
        expect(powertoolsRecordId(event, ...ours)).toBe(layer.getHashedIdempotencyKey(event));
      }),
      { numRuns: 300 },
    );
  });

  it('hashes the whole event when the expression is empty, as Powertools does without one', async () => {
    const layer = powertoolsLayer({});
    const ours = await source({ eventKeyJmesPath: '' });
    fc.assert(
      fc.property(jsonValue, (input) =>
        expect(powertoolsRecordId(input, ...ours)).toBe(layer.getHashedIdempotencyKey(input)),
      ),
      { numRuns: 100 },
    );
  });

  it('gives the validation hash Powertools stores, with another hash function', async () => {
    const config = {
      eventKeyJmesPath: 'orderId',
      payloadValidationJmesPath: '[amount, currency]',
      hashFunction: 'sha256',
    };
    const layer = powertoolsLayer(config);
    const ours = await source({
      eventKeyJmesPath: 'orderId',
      payloadValidationJmesPath: '[amount, currency]',
      hashFunction: 'sha256',
    });
    const input = { orderId: 'ord_1', amount: 1250, currency: 'EUR' };
    expect(powertoolsRecordId(input, ...ours)).toBe(layer.getHashedIdempotencyKey(input));
    expect(powertoolsPayloadHash(input, ...ours)).toBe(layer.getHashedPayload(input));
  });

  it('trims the key prefix as Powertools does', async () => {
    const layer = powertoolsLayer({ eventKeyJmesPath: 'orderId' }, '  payments  ');
    expect(
      powertoolsRecordId({ orderId: 'o' }, ...(await source({ keyPrefix: ' payments ', eventKeyJmesPath: 'orderId' }))),
    ).toBe(layer.getHashedIdempotencyKey({ orderId: 'o' }));
  });

  it('has no id for an event whose selection is null, which Powertools does not guard', async () => {
    expect(
      powertoolsRecordId({ body: '{}' }, ...(await source({ eventKeyJmesPath: 'powertools_json(body).orderId' }))),
    ).toBeUndefined();
  });

  it('has no id for an event whose expression cannot be evaluated, which Powertools fails before writing', async () => {
    expect(
      powertoolsRecordId(
        { body: 'not json' },
        ...(await source({ eventKeyJmesPath: 'powertools_json(body).orderId' })),
      ),
    ).toBeUndefined();
  });
});

describe('fromPowertools options', () => {
  const valid = { tableName: 'legacy', keyPrefix: 'create-payment', eventKeyJmesPath: 'orderId' };
  it.each([
    ['an unknown option', { ...valid, expiresAfterSeconds: 60 }, "unknown option 'expiresAfterSeconds'"],
    ['an unknown attribute name', { ...valid, attributes: { expiry: 'exp' } }, "unknown option 'expiry'"],
    ['a missing key prefix', { ...valid, keyPrefix: '  ' }, 'keyPrefix'],
    ['an expression that is not a string', { ...valid, eventKeyJmesPath: 42 }, 'eventKeyJmesPath'],
    ['an empty validation expression', { ...valid, payloadValidationJmesPath: '' }, 'payloadValidationJmesPath'],
    ['a sort key without its partition value', { ...valid, attributes: { sortKey: 'sk' } }, 'staticPkValue'],
    ['an unknown hash function', { ...valid, hashFunction: 'md6' }, 'hashFunction'],
    ['an invalid end of window', { ...valid, until: new Date('not a date') }, 'until'],
    ['a short table name', { ...valid, tableName: 'x' }, 'tableName'],
  ])('refuses %s, naming it', (_, options, message) => {
    expect(() => fromPowertools(options as never)).toThrow(InvalidOptionsError);
    expect(() => fromPowertools(options as never)).toThrow(message);
  });

  it.each([
    ['an expression with a syntax error', { eventKeyJmesPath: 'body.[' }, 'eventKeyJmesPath'],
    [
      'an unknown JMESPath function',
      { payloadValidationJmesPath: 'powertools_yaml(body)' },
      'payloadValidationJmesPath',
    ],
  ])('refuses %s when JMESPath compiles it, naming the option', async (_, expressions, option) => {
    const resolved = resolvePowertoolsSource('fromPowertools', { ...valid, ...expressions });
    const compiling = loadPowertoolsSearch('httpIdempotency', resolved);
    await expect(compiling).rejects.toThrow(InvalidOptionsError);
    await expect(compiling).rejects.toThrow(
      `option 'migrateFrom' (fromPowertools option '${option}') is not a valid JMESPath expression`,
    );
  });

  it('accepts an expression that fails only on some events', async () => {
    expect(
      resolvePowertoolsSource('fromPowertools', { ...valid, eventKeyJmesPath: 'powertools_json(body).orderId' })
        .eventKeyJmesPath,
    ).toBe('powertools_json(body).orderId');
  });
});

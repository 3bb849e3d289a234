import { getHashes } from 'node:crypto';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Functions } from '@aws-lambda-powertools/jmespath/functions';
import {
  assertKnownOptions,
  InvalidOptionsError,
  readClient,
  readString,
  readTableName,
  required,
} from '../core/index.js';

/**
 * Attribute names of the Powertools idempotency table, as `DynamoDBPersistenceLayer` was
 * configured (`keyAttr`, `sortKeyAttr`, `statusAttr`, `expiryAttr`, `inProgressExpiryAttr`,
 * `dataAttr`, `validationKeyAttr`).
 */
export interface PowertoolsAttributeNames {
  /** @default 'id' */
  readonly key?: string;
  /**
   * Sort key of a composite-key table (Powertools `sortKeyAttr`); then `staticPkValue` is required.
   * @default undefined (the table has a partition key only)
   */
  readonly sortKey?: string;
  /** @default 'status' */
  readonly status?: string;
  /** Epoch seconds. @default 'expiration' */
  readonly expiration?: string;
  /** Epoch milliseconds. @default 'in_progress_expiration' */
  readonly inProgressExpiration?: string;
  /** @default 'data' */
  readonly data?: string;
  /** @default 'validation' */
  readonly validation?: string;
}

/**
 * Where and how `@aws-lambda-powertools/idempotency` 2.x kept its records: the same values its
 * `DynamoDBPersistenceLayer` and `IdempotencyConfig` were given.
 *
 * @example
 * migrateFrom: {
 *   powertools: {
 *     tableName: 'IdempotencyTable',
 *     keyPrefix: 'payments-create-payment', // the function name, unless Powertools was given a keyPrefix
 *     eventKeyJmesPath: 'powertools_json(body).[customerId, orderId]',
 *     until: new Date('2026-12-01T00:00:00Z'),
 *   },
 * }
 */
export interface PowertoolsMigrationOptions {
  /** The Powertools table. */
  readonly tableName: string;
  /**
   * Client that reads it (one consistent `GetItem` per new key).
   * @default a new DynamoDBClient from the environment
   */
  readonly client?: DynamoDBClient | DynamoDBDocumentClient;
  /**
   * Prefix of Powertools keys: the `keyPrefix` it was given, else the Lambda function name it ran under
   * (`AWS_LAMBDA_FUNCTION_NAME`). Trimmed, as Powertools trims it.
   */
  readonly keyPrefix: string;
  /** Powertools `eventKeyJmesPath`; `''` hashes the whole event, as Powertools does without one. */
  readonly eventKeyJmesPath: string;
  /**
   * Powertools `payloadValidationJmesPath`: a stored validation hash that differs answers 422.
   * @default undefined (no validation)
   */
  readonly payloadValidationJmesPath?: string;
  /**
   * Attribute names, when the persistence layer was given others.
   * @default Powertools' own names
   */
  readonly attributes?: PowertoolsAttributeNames;
  /**
   * Partition key value of a composite-key table (Powertools `staticPkValue`, whose default is
   * `idempotency#<function name>`). Required with `attributes.sortKey`.
   */
  readonly staticPkValue?: string;
  /**
   * Powertools `hashFunction` (a Node.js hash name).
   * @default 'md5'
   */
  readonly hashFunction?: string;
  /**
   * Powertools `jmesPathOptions`: the functions the expressions may call.
   * @default new PowertoolsFunctions() (`powertools_json`, `powertools_base64`, `powertools_base64_gzip`)
   */
  readonly jmesPathFunctions?: Functions;
  /**
   * End of the cut-over window: from then on no Powertools record is read. Set it to the
   * deploy time plus Powertools' `expiresAfterSeconds`, when the last old record has expired.
   * @default undefined (read until the option is removed)
   */
  readonly until?: Date;
}

/** The Powertools table, key derivation and window, validated. */
export interface PowertoolsSource {
  readonly tableName: string;
  readonly client: Pick<DynamoDBClient, 'send'>;
  readonly keyPrefix: string;
  readonly eventKeyJmesPath: string;
  readonly payloadValidationJmesPath?: string;
  readonly attributes: Required<Omit<PowertoolsAttributeNames, 'sortKey'>> & { readonly sortKey?: string };
  readonly staticPkValue?: string;
  readonly hashFunction: string;
  /** The functions the expressions may call; undefined for Powertools' own (`PowertoolsFunctions`). */
  readonly jmesPathFunctions?: Functions;
  readonly untilEpochMs?: number;
}

/** Evaluates a JMESPath expression as Powertools does (`loadPowertoolsSearch`). */
export type PowertoolsSearch = (expression: string, data: unknown) => unknown;

const OPTION_NAMES = [
  'tableName',
  'client',
  'keyPrefix',
  'eventKeyJmesPath',
  'payloadValidationJmesPath',
  'attributes',
  'staticPkValue',
  'hashFunction',
  'jmesPathFunctions',
  'until',
] as const satisfies ReadonlyArray<keyof PowertoolsMigrationOptions>;
const DEFAULT_ATTRIBUTES = {
  key: 'id',
  status: 'status',
  expiration: 'expiration',
  inProgressExpiration: 'in_progress_expiration',
  data: 'data',
  validation: 'validation',
} as const;
const ATTRIBUTE_NAMES = [...Object.keys(DEFAULT_ATTRIBUTES), 'sortKey'];

/**
 * Validates the options of `fromPowertools` once, when it is called; an unknown name throws and
 * names it. The expressions are checked to be strings here and compiled by
 * `loadPowertoolsSearch`, which the guard's factory starts at once but which ends after it
 * returns (JMESPath is loaded on first need).
 *
 * @throws InvalidOptionsError naming the option
 */
export function resolvePowertoolsSource(factory: string, options: PowertoolsMigrationOptions): PowertoolsSource {
  if (typeof options !== 'object' || options === null)
    throw new InvalidOptionsError(`${factory}: the options must be an object`);
  assertKnownOptions(factory, options, OPTION_NAMES);
  const tableName = required(factory, 'tableName', readTableName(factory, 'tableName', options.tableName, undefined));
  const keyPrefix = typeof options.keyPrefix === 'string' ? options.keyPrefix.trim() : '';
  if (keyPrefix.length === 0)
    throw new InvalidOptionsError(
      `${factory}: option 'keyPrefix' must be a non-empty string (Powertools' default is the function name)`,
    );
  readClient(factory, 'client', options.client, 'a DynamoDBClient or DynamoDBDocumentClient');
  const hashFunction = readString(factory, 'hashFunction', options.hashFunction, 'md5');
  if (!getHashes().includes(hashFunction))
    throw new InvalidOptionsError(
      `${factory}: option 'hashFunction' must be a Node.js hash name, got '${hashFunction}'`,
    );
  if (
    options.jmesPathFunctions !== undefined &&
    (typeof options.jmesPathFunctions !== 'object' || options.jmesPathFunctions === null)
  ) {
    throw new InvalidOptionsError(`${factory}: option 'jmesPathFunctions' must be a Functions instance`);
  }
  checkExpression(`${factory}: option 'eventKeyJmesPath'`, options.eventKeyJmesPath, true);
  if (options.payloadValidationJmesPath !== undefined) {
    checkExpression(`${factory}: option 'payloadValidationJmesPath'`, options.payloadValidationJmesPath, false);
  }
  const attributes = resolveAttributes(factory, 'attributes', options.attributes);
  const staticPkValue = readString(factory, 'staticPkValue', options.staticPkValue, undefined);
  if (attributes.sortKey !== undefined && staticPkValue === undefined) {
    throw new InvalidOptionsError(
      `${factory}: option 'staticPkValue' is required with attributes.sortKey (Powertools' default is 'idempotency#<function name>')`,
    );
  }
  if (options.until !== undefined && !(options.until instanceof Date && Number.isFinite(options.until.getTime()))) {
    throw new InvalidOptionsError(`${factory}: option 'until' must be a valid Date`);
  }
  return {
    tableName,
    client: options.client ?? new DynamoDBClient({}),
    keyPrefix,
    eventKeyJmesPath: options.eventKeyJmesPath,
    payloadValidationJmesPath: options.payloadValidationJmesPath,
    attributes,
    staticPkValue: attributes.sortKey === undefined ? undefined : staticPkValue,
    hashFunction,
    jmesPathFunctions: options.jmesPathFunctions,
    untilEpochMs: options.until?.getTime(),
  };
}

/** An expression must be a string (non-empty unless the whole event is meant); `loadPowertoolsSearch` compiles it. */
function checkExpression(name: string, expression: unknown, emptyAllowed: boolean): asserts expression is string {
  if (typeof expression !== 'string' || (!emptyAllowed && expression.length === 0)) {
    throw new InvalidOptionsError(
      `${name} must be a JMESPath expression${emptyAllowed ? " ('' for the whole event)" : ''}`,
    );
  }
}

function resolveAttributes(
  factory: string,
  name: string,
  value: PowertoolsAttributeNames | undefined,
): PowertoolsSource['attributes'] {
  if (value === undefined) return DEFAULT_ATTRIBUTES;
  assertKnownOptions(`${factory} (${name})`, value, ATTRIBUTE_NAMES);
  const given: Record<string, string> = {};
  for (const [key, attribute] of Object.entries(value)) {
    const checked = readString(factory, `${name}.${key}`, attribute, undefined);
    if (checked !== undefined) given[key] = checked;
  }
  const resolved: PowertoolsSource['attributes'] = { ...DEFAULT_ATTRIBUTES, ...given };
  if (resolved.sortKey === resolved.key)
    throw new InvalidOptionsError(`${factory}: option '${name}.sortKey' must differ from the key attribute`);
  return resolved;
}

import { InvalidOptionsError } from './errors.js';

/*
 * The one option validator of every factory (guards, client, dispatcher, constructs' runtime
 * side): each check names the factory and the option, and returns the value or its default,
 * so a factory reads its options in one pass and never mutates them.
 */

/** Range a numeric option must fall in; bounds are inclusive. */
export interface NumberRule {
  /** @default 0 */
  readonly min?: number;
  /** @default Number.MAX_VALUE */
  readonly max?: number;
  /** Whole numbers only. @default false */
  readonly integer?: boolean;
  /** Whether `Infinity` means "no limit" for this option. @default false */
  readonly infinite?: boolean;
}

/**
 * Throws when `options` holds a name outside `known`, so a misspelt option fails loudly
 * instead of silently falling back to its default.
 *
 * @example
 * assertKnownOptions('retry', { maxAttempt: 3 }, ['maxAttempts']) // throws, naming 'maxAttempt'
 */
export function assertKnownOptions(owner: string, options: unknown, known: readonly string[]): void {
  if (options === null || typeof options !== 'object') {
    throw new InvalidOptionsError(`${owner}: options must be an object`);
  }
  for (const name of Object.keys(options)) {
    if (!known.includes(name)) {
      throw new InvalidOptionsError(`${owner}: unknown option '${name}' (known options: ${known.join(', ')})`);
    }
  }
}

/**
 * Returns `value`, or `fallback` when it is undefined, after checking it against `rule`.
 *
 * @example
 * readNumber('retry', 'maxAttempts', options.maxAttempts, 5, { min: 1, integer: true })
 */
export function readNumber<F extends number | undefined>(
  owner: string,
  name: string,
  value: unknown,
  fallback: F,
  rule: NumberRule = {},
): number | F {
  if (value === undefined) return fallback;
  const where = `${owner}: option '${name}'`;
  if (typeof value !== 'number' || Number.isNaN(value)) {
    throw new InvalidOptionsError(`${where} must be a number, got ${String(value)}`);
  }
  if (!Number.isFinite(value) && !(rule.infinite === true && value > 0)) {
    throw new InvalidOptionsError(`${where} must be finite, got ${value}`);
  }
  if (rule.integer === true && Number.isFinite(value) && !Number.isInteger(value)) {
    throw new InvalidOptionsError(`${where} must be a whole number, got ${value}`);
  }
  const min = rule.min ?? 0;
  if (value < min) throw new InvalidOptionsError(`${where} must be at least ${min}, got ${value}`);
  const max = rule.max ?? Number.MAX_VALUE;
  if (Number.isFinite(value) && value > max) {
    throw new InvalidOptionsError(`${where} must be at most ${max}, got ${value}`);
  }
  return value;
}

/**
 * Returns `value`, or `fallback` when it is undefined, after checking it is a function.
 *
 * @example
 * const random = readFunction('retry', 'random', options.random, Math.random)
 */
export function readFunction<F extends (...args: never[]) => unknown>(
  owner: string,
  name: string,
  value: F | undefined,
  fallback: F,
): F;
export function readFunction<F extends (...args: never[]) => unknown>(
  owner: string,
  name: string,
  value: F | undefined,
  fallback: undefined,
): F | undefined;
export function readFunction<F extends (...args: never[]) => unknown>(
  owner: string,
  name: string,
  value: F | undefined,
  fallback: F | undefined,
): F | undefined {
  if (value === undefined) return fallback;
  if (typeof value !== 'function') {
    throw new InvalidOptionsError(`${owner}: option '${name}' must be a function, got ${typeof value}`);
  }
  return value;
}

/**
 * Returns `value`, or `fallback` when it is undefined, after checking it is one of `allowed`.
 *
 * @example
 * readOneOf('httpIdempotency', 'inProgress', options.inProgress, 'reject', ['reject', 'wait'] as const)
 */
export function readOneOf<T extends string>(
  owner: string,
  name: string,
  value: unknown,
  fallback: T,
  allowed: readonly T[],
): T {
  if (value === undefined) return fallback;
  if (typeof value !== 'string' || !(allowed as readonly string[]).includes(value)) {
    throw new InvalidOptionsError(
      `${owner}: option '${name}' must be ${allowed.map((a) => `'${a}'`).join(' or ')}, got ${String(value)}`,
    );
  }
  return value as T;
}

/**
 * Returns `value`, or `fallback` when it is undefined, after checking it is a non-empty string.
 *
 * @example
 * readString('makeIdempotent', 'operation', options.operation, undefined)
 */
export function readString<F extends string | undefined>(
  owner: string,
  name: string,
  value: unknown,
  fallback: F,
): string | F {
  if (value === undefined) return fallback;
  if (typeof value !== 'string' || value.length === 0) {
    throw new InvalidOptionsError(
      `${owner}: option '${name}' must be a non-empty string, got ${typeof value === 'string' ? "''" : String(value)}`,
    );
  }
  return value;
}

/**
 * Returns `value`, or `fallback` when it is undefined, after checking it is a boolean.
 *
 * @example
 * readBoolean('httpIdempotency', 'required', options.required, undefined)
 */
export function readBoolean<F extends boolean | undefined>(
  owner: string,
  name: string,
  value: unknown,
  fallback: F,
): boolean | F {
  if (value === undefined) return fallback;
  if (typeof value !== 'boolean') {
    throw new InvalidOptionsError(`${owner}: option '${name}' must be true or false, got ${String(value)}`);
  }
  return value;
}

/**
 * Returns `value` after checking it is an AWS SDK v3 client (it has a `send` method);
 * undefined when absent, for the factory to create its own.
 *
 * @example
 * readClient('DynamoDBJournal', 'client', options.client, 'a DynamoDBClient or DynamoDBDocumentClient')
 */
export function readClient<C>(owner: string, name: string, value: C | undefined, expected: string): C | undefined {
  if (value === undefined) return undefined;
  if (value === null || typeof (value as { send?: unknown }).send !== 'function') {
    throw new InvalidOptionsError(`${owner}: option '${name}' must be ${expected}`);
  }
  return value;
}

/**
 * Returns `value`, or `fallback` when it is undefined, after checking it can name a DynamoDB
 * table: a string of at least 3 characters (a table name, or a table ARN).
 *
 * @example
 * readTableName('ProjectionGuard', 'tableName', options.tableName, undefined)
 */
export function readTableName<F extends string | undefined>(
  owner: string,
  name: string,
  value: unknown,
  fallback: F,
): string | F {
  if (value === undefined) return fallback;
  if (typeof value !== 'string' || value.length < 3) {
    throw new InvalidOptionsError(`${owner}: option '${name}' must be a table name of at least 3 characters`);
  }
  return value;
}

/**
 * Returns `value` after checking it is present: for options a factory cannot default.
 *
 * @example
 * const key = required('makeIdempotent', 'key', readFunction('makeIdempotent', 'key', options.key, undefined))
 */
export function required<T>(owner: string, name: string, value: T | undefined): T {
  if (value === undefined) throw new InvalidOptionsError(`${owner}: option '${name}' is required`);
  return value;
}

import { InvalidOptionsError } from '../errors/index.js';

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
export function readNumber(owner: string, name: string, value: unknown, fallback: number, rule: NumberRule = {}): number {
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
export function readFunction<F extends (...args: never[]) => unknown>(owner: string, name: string, value: unknown, fallback: F): F {
  if (value === undefined) return fallback;
  if (typeof value !== 'function') {
    throw new InvalidOptionsError(`${owner}: option '${name}' must be a function, got ${typeof value}`);
  }
  return value as F;
}

import { InvalidOptionsError, readFunction, readString, required } from '../core/index.js';
import { fingerprintOf, IdempotencyEngine, resolveGuardOptions, type GuardOptions, type LambdaContextLike } from '../engine/index.js';
import { legacyLookupFor, type MigrateFromOptions } from '../migration/index.js';
import { MetricDimension, Telemetry } from '../telemetry/index.js';

/** Options of {@link makeIdempotent}. */
export interface MakeIdempotentOptions<TInput> extends GuardOptions {
  /** Operation part of the scope, for example `'reserveStock'`. */
  readonly operation: string;
  /** The idempotency key of an input. A missing key throws `KeyMissingError`. */
  readonly key: (input: TInput) => string | undefined;
  /**
   * What the fingerprint covers.
   * @default the whole input
   */
  readonly fingerprint?: (input: TInput) => unknown;
  /**
   * Tenant part of the scope.
   * @default '-'
   */
  readonly tenant?: (input: TInput) => string;
  /**
   * The idempotency library being replaced. Its key derivation reads the input, as Powertools'
   * `makeIdempotent` reads its first argument (or a handler's event); for a function it wrapped with
   * `dataIndexArgument`, make that argument a field of the input and select it in the expressions.
   * @default undefined (no migration)
   */
  readonly migrateFrom?: MigrateFromOptions;
}

const FACTORY = 'makeIdempotent';
const OPTION_NAMES = ['operation', 'key', 'fingerprint', 'tenant', 'migrateFrom'];

/**
 * Wraps any async function with the idempotency engine: one execution per key, the stored
 * result returned to every later call with the same key and input.
 *
 * @throws KeyMissingError, KeyInvalidError, PayloadMismatchError, InProgressError,
 *   NeedsReviewError, UniqueConflictError, WriteConflictError, JournalUnavailableError
 * @example
 * const reserve = makeIdempotent(reserveStock, { journal, operation: 'reserveStock', key: (order) => order.id });
 */
export function makeIdempotent<TInput, TResult>(
  fn: (input: TInput, context: LambdaContextLike) => Promise<TResult>,
  options: MakeIdempotentOptions<TInput>,
): (input: TInput, context?: LambdaContextLike) => Promise<TResult> {
  if (typeof fn !== 'function') throw new InvalidOptionsError(`${FACTORY}: the first argument must be a function`);
  const settings = resolveGuardOptions(FACTORY, options, OPTION_NAMES);
  const operation = required(FACTORY, 'operation', readString(FACTORY, 'operation', options.operation, undefined));
  const keyOf = required(FACTORY, 'key', readFunction(FACTORY, 'key', options.key, undefined));
  const fingerprintInput = readFunction(FACTORY, 'fingerprint', options.fingerprint, (input: TInput): unknown => input);
  const tenantOf = readFunction(FACTORY, 'tenant', options.tenant, () => '-');
  const legacyLookup = legacyLookupFor(FACTORY, options.migrateFrom, settings.clock);
  const engine = new IdempotencyEngine({ ...settings, legacyLookup }, new Telemetry(MetricDimension.operation, options));

  return async function idempotent(input: TInput, context: LambdaContextLike = {}): Promise<TResult> {
    const result = await engine.run(
      {
        kind: 'request',
        tenant: tenantOf(input),
        operation,
        key: () => keyOf(input),
        keyLabel: 'The idempotency key of the input',
        fingerprint: () => fingerprintOf(fingerprintInput(input)),
        legacyEvent: input,
      },
      context,
      { invoke: (scoped) => fn(input, scoped), outcomeOf: (response) => ({ store: true, response }) },
    );
    return result.response as TResult;
  };
}

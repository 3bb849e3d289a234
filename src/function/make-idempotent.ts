import { InvalidOptionsError, NO_TENANT, readFunction, readString, required, scopePart } from '../core/index.js';
import {
  fingerprintOf,
  IdempotencyEngine,
  legacyLookupOf,
  resolveGuardOptions,
  type MigrationSource,
  type GuardOptions,
  type LambdaContextLike,
} from '../engine/index.js';
import { storedJsonForm } from '../journal/index.js';
import { constructGivenName } from '../core/index.js';
import { MetricDimension, Telemetry } from '../telemetry/index.js';

/** Options of {@link makeIdempotent}. */
export interface MakeIdempotentOptions<TInput> extends GuardOptions {
  /**
   * Operation part of the scope, for example `'reserveStock'`.
   * @default `IDEMKIT_OPERATION` (`IdemkitFunction`'s `operationName`); one of the two is required
   */
  readonly operation?: string;
  /** The idempotency key of an input. A missing key throws `KeyMissingError`. */
  readonly key: (input: TInput) => string | undefined;
  /**
   * What the fingerprint covers.
   * @default the whole input
   */
  readonly fingerprint?: (input: TInput) => unknown;
  /**
   * Tenant part of the scope. A number is its decimal string; an empty string or any other
   * value throws `RequestInvalidError` before `fn` runs.
   * @default '-'
   */
  readonly tenant?: (input: TInput) => string;
  /**
   * The idempotency library being replaced. Its key derivation reads the input, as Powertools'
   * `makeIdempotent` reads its first argument (or a handler's event); for a function it wrapped with
   * `dataIndexArgument`, make that argument a field of the input and select it in the expressions.
   * @default undefined (no migration)
   */
  readonly migrateFrom?: MigrationSource;
}

const FACTORY = 'makeIdempotent';
const OPTION_NAMES = [
  'operation',
  'key',
  'fingerprint',
  'tenant',
  'migrateFrom',
] as const satisfies readonly (keyof MakeIdempotentOptions<unknown>)[];

/**
 * Wraps any async function with the idempotency engine: one execution per key, the stored
 * result returned to every later call with the same key and input. Every caller, the first
 * included, gets the stored form of the result: its JSON round trip (a `Date` becomes its ISO
 * string). A result JSON cannot carry (a BigInt, a cycle) completes the record without a
 * stored result: `fn` never runs again for that key, and every call gets
 * `ResponseNotSerializableError`.
 *
 * @throws KeyMissingError, KeyInvalidError, PayloadMismatchError, InProgressError,
 *   NeedsReviewError, UniqueConflictError, WriteConflictError, StagedWriteError,
 *   JournalUnavailableError, ResponseNotSerializableError, ResponseTooLargeError (on a
 *   replay), RequestInvalidError
 * In a Lambda durable function the context is the SDK's durable context: the guard recognises
 * the execution's replays and leases the record for the whole execution
 * (`durableExecutionTimeoutSeconds`).
 *
 * @example
 * const reserve = makeIdempotent(reserveStock, { journal, operation: 'reserveStock', key: (order) => order.id });
 * @example
 * export const handler = withDurableExecution(makeIdempotent(fulfil, { journal, operation: 'fulfil', key: (o) => o.id }));
 */
export function makeIdempotent<TInput, TResult, TContext extends object = LambdaContextLike>(
  fn: (input: TInput, context: TContext) => Promise<TResult>,
  options: MakeIdempotentOptions<TInput>,
): (input: TInput, context?: TContext) => Promise<TResult> {
  if (typeof fn !== 'function') throw new InvalidOptionsError(`${FACTORY}: the first argument must be a function`);
  const settings = resolveGuardOptions(FACTORY, options, OPTION_NAMES);
  const givenName = constructGivenName('operation');
  const operation = required(FACTORY, 'operation', readString(FACTORY, 'operation', options.operation, givenName));
  const keyOf = required(FACTORY, 'key', readFunction(FACTORY, 'key', options.key, undefined));
  const fingerprintInput = readFunction(FACTORY, 'fingerprint', options.fingerprint, (input: TInput): unknown => input);
  const tenantOf = readFunction(FACTORY, 'tenant', options.tenant, () => NO_TENANT);
  const legacyLookup = legacyLookupOf(FACTORY, options.migrateFrom, settings);
  // A result a `recover` hook or the previous library hands back is returned in its stored form too.
  const engine = new IdempotencyEngine(
    {
      ...settings,
      legacyLookup,
      storedFormOf: storedJsonForm,
      // The first caller gets what a replay gets, so code that works once also works on the retry path.
      outcomeOf: (result) => ({ store: true, response: storedJsonForm(result) }),
    },
    new Telemetry(MetricDimension.operation, options),
  );

  return async function idempotent(input: TInput, context: TContext = {} as TContext): Promise<TResult> {
    let tenant: string | undefined;
    let scopeError: unknown;
    try {
      tenant = scopePart(tenantOf(input), "the 'tenant' option") ?? NO_TENANT;
    } catch (error) {
      scopeError = error;
    }
    const result = await engine.run(
      {
        kind: 'request',
        tenant,
        scopeError,
        operation,
        key: () => keyOf(input),
        keyLabel: 'The idempotency key of the input',
        fingerprint: () => fingerprintOf(fingerprintInput(input)),
        legacyEvent: input,
      },
      context as LambdaContextLike,
      // The handler gets its own context back (a durable context keeps its steps), with the attempt's scope bound.
      { invoke: (scoped) => fn(input, scoped as TContext) },
    );
    return (result as { response: unknown }).response as TResult;
  };
}

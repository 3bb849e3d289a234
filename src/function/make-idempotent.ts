import { bindScope, checkFunction, fingerprintOf, GUARD_OPTION_NAMES, IdempotencyEngine, newTrace, rejectUnknownOptions, resolveGuardOptions, unbindScope } from '../engine/index.js';
import type { GuardOptions } from '../engine/index.js';
import { InvalidOptionsError, KeyInvalidError, KeyMissingError, LeaseLostError } from '../errors/index.js';
import { scopePart } from '../http/http-event.js';
import { keyProblem } from '../http/key-header.js';
import { requestPk, storedJsonForm } from '../journal/index.js';
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
   * Tenant part of the scope. A number is its decimal string; an empty string or any other
   * value throws `RequestInvalidError` before `fn` runs.
   * @default '-'
   */
  readonly tenant?: (input: TInput) => string;
}

/** A Lambda context, or any object standing for one outside Lambda. */
type ContextLike = { awsRequestId?: string; getRemainingTimeInMillis?: () => number };

const OPTION_NAMES = [...GUARD_OPTION_NAMES, 'operation', 'key', 'fingerprint', 'tenant'];

/**
 * Wraps any async function with the idempotency engine: one execution per key, the stored
 * result returned to every later call with the same key and input. Every caller, the first
 * included, gets the stored form of the result: its JSON round trip (a `Date` becomes its ISO
 * string). A result JSON cannot carry (a BigInt, a cycle) completes the record without a
 * stored result: `fn` never runs again for that key, and every call gets
 * `ResponseNotSerializableError`.
 *
 * @throws KeyMissingError, KeyInvalidError, PayloadMismatchError, InProgressError,
 *   NeedsReviewError, UniqueConflictError, WriteConflictError, JournalUnavailableError,
 *   ResponseNotSerializableError, ResponseTooLargeError (on a replay), RequestInvalidError
 * @example
 * const reserve = makeIdempotent(reserveStock, { journal, operation: 'reserveStock', key: (order) => order.id });
 */
export function makeIdempotent<TInput, TResult>(
  fn: (input: TInput, context: ContextLike) => Promise<TResult>,
  options: MakeIdempotentOptions<TInput>,
): (input: TInput, context?: ContextLike) => Promise<TResult> {
  if (typeof fn !== 'function') throw new InvalidOptionsError('makeIdempotent: the first argument must be a function');
  rejectUnknownOptions('makeIdempotent', options, OPTION_NAMES);
  const settings = resolveGuardOptions('makeIdempotent', options);
  if (typeof options.operation !== 'string' || options.operation.length === 0) throw new InvalidOptionsError("makeIdempotent: 'operation' must be a non-empty string");
  if (typeof options.key !== 'function') throw new InvalidOptionsError("makeIdempotent: 'key' must be a function");
  checkFunction('makeIdempotent', 'fingerprint', options.fingerprint);
  checkFunction('makeIdempotent', 'tenant', options.tenant);
  // A result a `recover` hook hands back is returned in its stored form too.
  const engine = new IdempotencyEngine({ ...settings, storedFormOf: storedJsonForm });
  const telemetry = new Telemetry(MetricDimension.operation, options);

  return async function idempotent(input: TInput, context: ContextLike = {}): Promise<TResult> {
    const startedAtEpochMs = settings.clock();
    const trace = newTrace();
    const identity = { requestId: context.awsRequestId, tenant: '-', operation: options.operation, key: undefined as string | undefined, requestHash: undefined as string | undefined };
    try {
      const tenant = options.tenant ? (scopePart(options.tenant(input), "the 'tenant' option") ?? '-') : '-';
      identity.tenant = tenant;
      const key = options.key(input);
      if (key === undefined || key === null || key === '') {
        trace.status = 'missing_key';
        throw new KeyMissingError(`makeIdempotent(${options.operation}): the input has no idempotency key`);
      }
      const problem = typeof key === 'string' ? keyProblem(key) : 'must be a string';
      if (problem) {
        trace.status = 'invalid_key';
        throw new KeyInvalidError(`The idempotency key ${problem}`);
      }
      identity.key = key;
      const fingerprint = fingerprintOf(options.fingerprint ? options.fingerprint(input) : input);
      identity.requestHash = fingerprint;
      const remainingTimeMs = typeof context.getRemainingTimeInMillis === 'function' ? () => context.getRemainingTimeInMillis!() : undefined;
      const admission = await engine.admit({ pk: requestPk(tenant, options.operation, key), key, scope: `${tenant}#${options.operation}`, fingerprint, remainingTimeMs }, trace);
      if (admission.kind === 'replay') return admission.response as TResult;
      const scope = admission.scope;
      // A context of its own: a guarded function called from a guarded handler must not replace the handler's scope.
      const scoped = Object.create(context) as ContextLike;
      bindScope(scoped, scope);
      let result: TResult;
      try {
        result = await fn(input, scoped);
      } catch (error) {
        if (error instanceof LeaseLostError) return (await engine.afterLeaseLost(scope, error, trace)).response as TResult;
        await engine.abandon(scope, trace);
        throw error;
      } finally {
        unbindScope(scoped);
      }
      const settlement = await engine.settle(scope, { store: true, response: result }, trace);
      // The first caller gets what a replay gets, so code that works once also works on the retry path.
      return (settlement.kind === 'superseded' ? settlement.response : storedJsonForm(settlement.response)) as TResult;
    } finally {
      telemetry.emit(identity, trace, startedAtEpochMs, settings.clock());
    }
  };
}

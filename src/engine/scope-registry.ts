import { IdempotencyError } from '../errors/index.js';
import type { IdempotencyScope } from './scope.js';

const scopes = new WeakMap<object, IdempotencyScope>();

/** Binds a scope to the Lambda context of the attempt that holds its lease. */
export function bindScope(context: object, scope: IdempotencyScope): void {
  scopes.set(context, scope);
}

/** Unbinds the scope once the attempt is over. */
export function unbindScope(context: object): void {
  scopes.delete(context);
}

/**
 * The idempotency scope of the guarded attempt running with this Lambda context.
 *
 * @throws IdempotencyError (`no-scope`) outside a guarded handler
 * @example
 * const scope = idempotencyOf(context);
 * await scope.beginEffect('charge');
 */
export function idempotencyOf(context: object): IdempotencyScope {
  const scope = context ? scopes.get(context) : undefined;
  if (!scope) throw new IdempotencyError('no-scope', 'idempotencyOf(context) is only available inside a guarded handler');
  return scope;
}

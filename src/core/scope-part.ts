import { RequestInvalidError } from './errors.js';

/**
 * The tenant of a request whose caller names none (no authorizer, no `tenant` option): every
 * such caller shares one scope per operation.
 */
export const NO_TENANT = '-';

/**
 * A tenant or operation as a scope part: a non-empty string as is, a finite number as its
 * decimal string (authorizer context values may be numbers), undefined when absent
 * (`undefined` or `null`).
 *
 * @throws RequestInvalidError for any other value (an empty string, a boolean, an object):
 *   guessing would put callers the authorizer tells apart into one scope
 * @example scopePart(4217, 'lambda.tenantId') // '4217'
 */
export function scopePart(value: unknown, source: string): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string' && value.length > 0) return value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  const shown =
    typeof value === 'string'
      ? 'an empty string'
      : typeof value === 'number'
        ? String(value)
        : Array.isArray(value)
          ? 'an array'
          : typeof value === 'object'
            ? 'an object'
            : `a ${typeof value}`;
  throw new RequestInvalidError(
    `The idempotency scope cannot be read: ${source} is ${shown}, not a non-empty string or a number`,
  );
}

/**
 * The tenant Lambda tenant isolation gives an invocation: `context.tenantId`, set by the platform
 * on every invocation of a function created with `TenancyConfig` `PER_TENANT`, and absent
 * otherwise. A boundary the platform sets, so it is part of every scope whenever present.
 *
 * @throws RequestInvalidError when the context holds a value that cannot name a tenant
 * @example lambdaTenantOf({ tenantId: 'acme' }) // 'acme'
 */
export function lambdaTenantOf(context: { readonly tenantId?: unknown } | undefined): string | undefined {
  return scopePart(context?.tenantId, "the Lambda context's tenantId");
}

import { KeyInvalidError, KeyMissingError, keyProblem, NO_TENANT } from '../core/index.js';
import { messagePk, requestPk } from '../journal/index.js';

/** One attempt as an entry point describes it, before anything is checked. */
export interface AttemptRequest {
  /**
   * `request` (HTTP, functions: `req#` records) or `message` (queues: `msg#` records, a replay counts as a suppressed
   * duplicate).
   */
  readonly kind: 'request' | 'message';
  /** Tenant part of the scope (requests only). */
  readonly tenant?: string;
  /** The operation, or the consumer of a queue. */
  readonly operation: string;
  /** Reads the key (or message id); it may throw `KeyMissingError` or `KeyInvalidError` itself. */
  readonly key: () => unknown;
  /** How answers name the key: `'The Idempotency-Key header'`, `'The message id'`. */
  readonly keyLabel: string;
  /** A problem the entry point found while reading the key (two different headers, say). */
  readonly keyProblem?: string;
  /** Why the tenant or operation could not be read (checked after the key, before the fingerprint). */
  readonly scopeError?: unknown;
  /** Hex fingerprint of the request; read only once the key passed its checks. */
  readonly fingerprint: () => string;
  /**
   * What the previous library's key derivation reads during a migration: the raw Lambda event, or the function's input.
   */
  readonly legacyEvent?: unknown;
}

/**
 * Reads the request's key and checks it: present, then well formed. Whatever else stops the key
 * from being read (an unreadable body holding it, say) is thrown as it is, and makes it invalid.
 *
 * @example readKey({ ...request, key: () => 'order-7' }) // 'order-7'
 * @throws KeyMissingError, KeyInvalidError
 */
export function readKey(request: AttemptRequest): string {
  if (request.keyProblem) throw new KeyInvalidError(request.keyProblem);
  const key = request.key();
  if (key === undefined || key === null || key === '') {
    throw new KeyMissingError(`${request.keyLabel} is required for ${request.operation}`);
  }
  const problem = keyProblem(key as string);
  if (problem) throw new KeyInvalidError(`${request.keyLabel} ${problem}`);
  return key as string;
}

/** The tenant part of a request's scope; none for a queue's message. */
export function tenantOf(request: AttemptRequest): string {
  return request.tenant ?? NO_TENANT;
}

/**
 * The key of the record that holds `key` for the request: a `msg#` record for a queue's message, a
 * `req#` record otherwise, behind the Lambda tenant under tenant isolation.
 */
export function recordPkOf(request: AttemptRequest, key: string, lambdaTenant: string | undefined): string {
  return request.kind === 'message'
    ? messagePk(request.operation, key, lambdaTenant)
    : requestPk(tenantOf(request), request.operation, key, lambdaTenant);
}

/** `<tenant>#<operation>`, or the consumer of a queue; behind `<lambdaTenant>|` under Lambda tenant isolation. */
export function scopeNameOf(request: AttemptRequest, lambdaTenant: string | undefined): string {
  const name = request.kind === 'message' ? request.operation : `${tenantOf(request)}#${request.operation}`;
  return lambdaTenant === undefined ? name : `${lambdaTenant}|${name}`;
}

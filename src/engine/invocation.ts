import type { EngineSettings } from './guard-options.js';
import { durableLeaseMs, type DurableExecution } from './durable-execution.js';

/**
 * What an attempt knows of the invocation it runs in: the Lambda context (or what stands for one
 * outside Lambda), how long a lease that invocation asks for runs, and whether a handler's error
 * says the invocation ended before the handler settled.
 */

/**
 * A Lambda context, or any object standing for one outside Lambda. Each field may be `undefined` as well as absent:
 * `@types/aws-lambda` declares `tenantId?: string | undefined`, and a consumer's `exactOptionalPropertyTypes` would
 * otherwise refuse a real `Context`.
 */
export type LambdaContextLike = {
  readonly awsRequestId?: string | undefined;
  /** The invocation's tenant under Lambda tenant isolation (`TenancyConfig` `PER_TENANT`). */
  readonly tenantId?: string | undefined;
  readonly xRayTraceId?: string | undefined;
  getRemainingTimeInMillis?: (() => number) | undefined;
};

/** What a lease outlives the invocation's deadline by, and what a wait stops short of it. */
export const LEASE_GRACE_MS = 1_000;
/** The lease of an attempt with no `leaseMs` option and no Lambda deadline. */
export const DEFAULT_LEASE_MS = 30_000;

/**
 * How long the invocation has left, read at each call: a durable context carries the invocation's
 * own Lambda context, so its remaining time is this invocation's. Undefined outside Lambda.
 *
 * @example remainingTimeOf(context, durableExecutionOf(context))?.() // 14_850
 */
export function remainingTimeOf(
  context: LambdaContextLike,
  durable: DurableExecution | undefined,
): (() => number) | undefined {
  const invocation = durable?.invocation ?? context;
  const getRemaining = invocation?.getRemainingTimeInMillis;
  return typeof getRemaining === 'function' ? () => getRemaining.call(invocation) : undefined;
}

/**
 * The lease an attempt asks for: a durable execution's whole timeout; else the option, else the
 * Lambda's remaining time plus a grace second, else a default.
 */
export function leaseMsFor(
  settings: Pick<EngineSettings, 'leaseMs' | 'durableExecutionTimeoutSeconds'>,
  durable: DurableExecution | undefined,
  remainingTimeMs: (() => number) | undefined,
): number {
  if (durable) return durableLeaseMs(settings.durableExecutionTimeoutSeconds, LEASE_GRACE_MS);
  if (settings.leaseMs !== undefined) return settings.leaseMs;
  const remainingMs = remainingTimeMs?.();
  return remainingMs !== undefined ? remainingMs + LEASE_GRACE_MS : DEFAULT_LEASE_MS;
}

/**
 * Whether a handler's error says its invocation ended before the handler settled, so its promise
 * may still be running: Middy's `timeoutEarly` (`@middy/core` rejects with its `TimeoutError` a few
 * milliseconds before the Lambda deadline while the handler goes on; Lambda freezes the container
 * and, when it is reused, the handler continues).
 */
export function endedBeforeSettling(error: unknown): boolean {
  return (
    error instanceof Error &&
    error.name === 'TimeoutError' &&
    (error.cause as { package?: unknown } | undefined)?.package === '@middy/core'
  );
}

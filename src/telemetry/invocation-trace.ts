/** What the Lambda runtime's per-invocation store (`@aws/lambda-invoke-store`) offers the guard. */
interface InvokeStoreLike {
  getXRayTraceId(): string | undefined;
}

/**
 * The X-Ray trace header of the invocation that is running now, for its log line.
 *
 * Read from the invocation itself, never from process-wide state alone: under Lambda Managed
 * Instances one process serves many invocations at once and `_X_AMZN_TRACE_ID` is not set (if it
 * were, it would belong to whichever invocation set it last). Order: the context's own
 * `xRayTraceId`, then the runtime's per-invocation store (`awslambda.InvokeStore`, which keeps one
 * value per invocation in an AsyncLocalStorage when `AWS_LAMBDA_MAX_CONCURRENCY` is set), then —
 * only where invocations run one at a time — the environment variable.
 *
 * @default undefined when no trace is known
 * @example traceIdOf(context) // 'Root=1-5759e988-bd862e3fe1be46a994272793;Parent=557abcec3ee5a047;Sampled=1'
 */
export function traceIdOf(context: { readonly xRayTraceId?: unknown } | undefined): string | undefined {
  const own = context?.xRayTraceId;
  if (typeof own === 'string' && own !== '') return own;
  const store = (globalThis as { awslambda?: { InvokeStore?: InvokeStoreLike } }).awslambda?.InvokeStore;
  const stored = store?.getXRayTraceId();
  if (stored) return stored;
  if (process.env.AWS_LAMBDA_MAX_CONCURRENCY) return undefined;
  return process.env._X_AMZN_TRACE_ID || undefined;
}

import type { Context } from 'aws-lambda';
import { randomBytes, randomUUID } from 'node:crypto';

/** Options of {@link lambdaContext}. */
export interface LambdaContextOptions {
  /**
   * Time left before the invocation's deadline when the context is made; it counts down as in
   * Lambda (the guard's default lease ends 1 s after the deadline).
   * @default 10000
   */
  readonly remainingTimeMs?: number;
  /**
   * Function name.
   * @default 'test-function'
   */
  readonly functionName?: string;
  /**
   * The invocation's request id (the log line's `request_id`).
   * @default - a new UUID
   */
  readonly awsRequestId?: string;
  /**
   * The invocation's X-Ray trace header (the log line's `trace_id`).
   * @default - none
   */
  readonly xRayTraceId?: string;
  /**
   * Memory in MiB.
   * @default 512
   */
  readonly memoryLimitInMB?: number;
}

/**
 * A Lambda context for calling a guarded handler in a test: a fresh request id, and a remaining
 * time that counts down from `remainingTimeMs`.
 *
 * @example
 * const context = lambdaContext({ remainingTimeMs: 3000 });
 * await handler(httpApiEvent({ idempotencyKey: 'k-1' }), context);
 */
export function lambdaContext(options: LambdaContextOptions = {}): Context & { readonly xRayTraceId?: string } {
  const functionName = options.functionName ?? 'test-function';
  const deadlineEpochMs = Date.now() + (options.remainingTimeMs ?? 10_000);
  const day = new Date().toISOString().slice(0, 10).replace(/-/g, '/');
  return {
    callbackWaitsForEmptyEventLoop: true,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:us-east-1:123456789012:function:${functionName}`,
    memoryLimitInMB: String(options.memoryLimitInMB ?? 512),
    awsRequestId: options.awsRequestId ?? randomUUID(),
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: `${day}/[$LATEST]${randomBytes(16).toString('hex')}`,
    ...(options.xRayTraceId === undefined ? {} : { xRayTraceId: options.xRayTraceId }),
    getRemainingTimeInMillis: () => Math.max(0, deadlineEpochMs - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

import type { Context } from 'aws-lambda';
import { randomBytes, randomUUID } from 'node:crypto';

/** What a local Lambda context is made from. */
export interface LocalContextOptions {
  readonly functionName: string;
  /** @default 10000 */
  readonly timeoutMs?: number;
  /** @default 512 */
  readonly memoryMb?: number;
  /** @default 'us-east-1' */
  readonly region?: string;
}

/** A Lambda context whose remaining time counts down from the function's timeout, as in Lambda. */
export function localLambdaContext(options: LocalContextOptions): Context {
  const deadline = Date.now() + (options.timeoutMs ?? 10_000);
  const day = new Date().toISOString().slice(0, 10).replace(/-/g, '/');
  const region = options.region ?? 'us-east-1';
  return {
    callbackWaitsForEmptyEventLoop: true,
    functionName: options.functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:${region}:000000000000:function:${options.functionName}`,
    memoryLimitInMB: String(options.memoryMb ?? 512),
    awsRequestId: randomUUID(),
    logGroupName: `/aws/lambda/${options.functionName}`,
    logStreamName: `${day}/[$LATEST]${randomBytes(16).toString('hex')}`,
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

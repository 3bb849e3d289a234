import { InvalidOptionsError } from '../core/index.js';
import { RecordStatus, type JournalRecord } from '../journal/index.js';
import type { IdempotencyScope } from './scope.js';

/**
 * Lambda durable functions (`@aws/durable-execution-sdk-js`, or Middy 7's durable execution mode)
 * invoke the handler again and again for one execution: every replay re-enters it with the same
 * input. The guard tells the execution that holds a record apart from every other attempt by its
 * durable execution ARN (the one identity all of its invocations share; request ids change with
 * each invocation), and sizes the record's lease to the execution, not to one invocation.
 */

/** The mark the SDK puts on every durable context (Middy 7's `isExecutionModeDurable` reads the same). */
const DURABLE_CONTEXT_MARK = Symbol.for('@aws/durable-execution-sdk-js/durable-context');

/** Lambda's longest durable execution: 366 days, in seconds (the `ExecutionTimeout` maximum). */
export const MAX_DURABLE_EXECUTION_TIMEOUT_SECONDS = 31_622_400;

/** The invocation's own Lambda context, as a durable context carries it. */
export type InvocationContext = {
  readonly awsRequestId?: string;
  /** The invocation's tenant under Lambda tenant isolation. */
  readonly tenantId?: unknown;
  /** The invocation's own X-Ray trace id (the log line's `trace_id`). */
  readonly xRayTraceId?: unknown;
  getRemainingTimeInMillis?: () => number;
};

/** The durable execution an attempt runs in. */
export interface DurableExecution {
  /** The durable execution ARN: the same on every invocation of one execution. */
  readonly executionArn: string;
  /** This invocation's Lambda context: its request id and remaining time. */
  readonly invocation: InvocationContext;
}

/**
 * The durable execution a handler's context belongs to; undefined for an ordinary Lambda
 * context. The SDK's context keeps the ARN under `executionContext` and the Lambda context under
 * `lambdaContext`; Middy 7 copies both onto the context it hands its middlewares.
 *
 * @example durableExecutionOf(context)?.executionArn // 'arn:aws:lambda:…:durable-execution:…'
 */
export function durableExecutionOf(context: unknown): DurableExecution | undefined {
  if (context === null || typeof context !== 'object') return undefined;
  const durable = context as {
    [DURABLE_CONTEXT_MARK]?: unknown;
    executionContext?: { durableExecutionArn?: unknown };
    durableExecutionArn?: unknown;
    lambdaContext?: InvocationContext;
  };
  if (durable[DURABLE_CONTEXT_MARK] !== true) return undefined;
  const executionArn = durable.executionContext?.durableExecutionArn ?? durable.durableExecutionArn;
  // Without its ARN the execution cannot be recognised: its replays are then refused like any duplicate (fail closed).
  if (typeof executionArn !== 'string' || executionArn === '') return undefined;
  return { executionArn, invocation: durable.lambdaContext ?? (context as InvocationContext) };
}

/**
 * True when `record` is held by this very execution under a live lease: the attempt is one of its
 * replays and continues under the record's own lease token. Any other attempt (another
 * execution's included) meets the record as usual.
 */
export function isOwnExecution(record: JournalRecord, executionArn: string | undefined, nowEpochMs: number): boolean {
  return (
    executionArn !== undefined &&
    record.durableExecutionArn === executionArn &&
    record.status === RecordStatus.inProgress &&
    record.leaseUntilEpochMs >= nowEpochMs
  );
}

/**
 * The lease of a durable execution's record: the execution's whole configured timeout, so a
 * duplicate arriving during a long wait still finds it in progress. Nothing in the context gives
 * that timeout, hence the option; its maximum is Lambda's.
 */
export function durableLeaseMs(executionTimeoutSeconds: number, graceMs: number): number {
  return executionTimeoutSeconds * 1_000 + graceMs;
}

/**
 * True for an error that ends one invocation of a durable execution, not the execution: Middy's
 * `timeoutEarly` (a `TimeoutError`, armed from the invocation's remaining time, also fires in an
 * invocation the SDK already suspended) or an abort. The execution goes on in a later invocation,
 * so its record stays held. Middy throws a plain `Error` so named: there is no class to test.
 */
export function endsInvocationOnly(error: unknown): boolean {
  const name = error instanceof Error ? error.name : undefined;
  return name === 'TimeoutError' || name === 'AbortError';
}

/**
 * A staged-only guard commits the key only when the handler returns, so every invocation of a
 * long execution would run its steps unguarded and stable ids would change between replays.
 *
 * @throws InvalidOptionsError
 */
export function assertLeasedForDurable(effects: 'any' | 'staged-only'): void {
  if (effects === 'staged-only') {
    throw new InvalidOptionsError(
      "effects: 'staged-only' does not apply to a durable execution (its steps run before anything commits); " +
        "use effects: 'any'",
    );
  }
}

/**
 * The `DurableExecutionName` an HTTP front door starts its durable execution under: derived from
 * the guarded request's scope, so every retry and takeover of one logical request names the same
 * execution, and Lambda starts it once (a name that exists with the same payload returns that
 * execution). 32 hex characters, within Lambda's name rules; a new key (or an expired one reused)
 * names a new execution.
 *
 * @example
 * await lambda.send(new InvokeCommand({ FunctionName, InvocationType: 'Event', Payload,
 *   DurableExecutionName: durableExecutionNameOf(idempotencyOf(context)) }));
 */
export function durableExecutionNameOf(scope: IdempotencyScope, label = 'durable-execution'): string {
  return scope.deriveKey(label);
}

import middy from '@middy/core';
import { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { durableExecutionNameOf, httpIdempotency, idempotencyOf } from '../../index.js';
import { callerTenant, json, jsonBody, problem } from '../http-responses.js';
import { PaymentsOperation } from '../service-config.js';
import type { AnyJournal, ExampleGuardOptions } from '../wiring.js';

/** One asynchronous start of a durable execution. */
export interface DurableStart {
  readonly functionName: string;
  readonly executionName: string;
  readonly payload: unknown;
}

/** Starts a durable execution and answers its ARN (Lambda's `Invoke` with `InvocationType: 'Event'`). */
export type StartDurableExecution = (start: DurableStart) => Promise<{ readonly executionArn: string }>;

/** What `POST /fulfilments` needs. */
export interface StartFulfilmentDependencies {
  readonly journal: AnyJournal;
  /** The durable fulfilment function: a qualified ARN (version or alias), as durable invokes require. */
  readonly functionName: string;
  /** @default Lambda `Invoke` through a `LambdaClient` from the environment */
  readonly start?: StartDurableExecution;
  /** @default none */
  readonly guardOptions?: ExampleGuardOptions;
}

/**
 * Starts durable executions through Lambda: `Invoke` with `InvocationType: 'Event'` and the
 * `DurableExecutionName`, so Lambda itself returns the existing execution for a name it already
 * started with the same payload.
 *
 * @example const start = lambdaDurableStarter(new LambdaClient({}));
 */
export function lambdaDurableStarter(client: LambdaClient = new LambdaClient({})): StartDurableExecution {
  return async function startDurableExecution({ functionName, executionName, payload }) {
    const out = await client.send(
      new InvokeCommand({
        FunctionName: functionName,
        InvocationType: 'Event',
        DurableExecutionName: executionName,
        Payload: JSON.stringify(payload),
      }),
    );
    if (!out.DurableExecutionArn)
      throw new Error(`${functionName} is not a durable function: no execution ARN came back`);
    return { executionArn: out.DurableExecutionArn };
  };
}

/**
 * `POST /fulfilments`, the HTTP front door of a durable workflow: answers 202 with the execution
 * at once, while the execution runs for as long as it needs. The guard's scope names the
 * execution (`durableExecutionNameOf`), so a retry of the request is idempotent at both layers:
 * a completed start replays its 202 without calling Lambda, and a start re-run after a crash
 * uses the same name, which Lambda starts only once.
 *
 * @example
 * const handler = startFulfilmentHandler({ journal: new MemoryJournal(), functionName: 'fulfil:live' });
 */
export function startFulfilmentHandler(deps: StartFulfilmentDependencies) {
  const start = deps.start ?? lambdaDurableStarter();
  return middy<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Error, Context>()
    .use(
      httpIdempotency({
        journal: deps.journal,
        operation: PaymentsOperation.startFulfilment,
        tenant: callerTenant,
        // A start that may have reached Lambda runs again under the same name: Lambda answers with that execution.
        recover: async () => ({ outcome: 'rerun' }),
        ...deps.guardOptions,
      }),
    )
    .handler(async function startFulfilment(event, context) {
      const body = jsonBody(event) as { orderId?: unknown } | undefined;
      if (typeof body?.orderId !== 'string' || body.orderId === '') {
        return problem(400, 'invalid-fulfilment', 'orderId must be a non-empty string');
      }
      const scope = idempotencyOf(context);
      const executionName = durableExecutionNameOf(scope);
      await scope.beginEffect('start-execution');
      const { executionArn } = await start({
        functionName: deps.functionName,
        executionName,
        payload: { orderId: body.orderId },
      });
      return json(202, { executionName, executionArn }, { location: `/fulfilments/${executionName}` });
    });
}

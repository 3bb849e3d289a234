import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { SQSClient } from '@aws-sdk/client-sqs';
import { outboxDispatcher } from '../../index.js';
import { HandlerEnv } from '../service-config.js';

/**
 * The outbox dispatcher of the example service, sending to the queue named by
 * `OUTBOX_QUEUE_URL` or the bus named by `OUTBOX_EVENT_BUS_NAME`.
 *
 * @throws Error when neither or both are set
 * @example const handler = createOutboxDispatcherHandler({ OUTBOX_QUEUE_URL: url });
 */
export function createOutboxDispatcherHandler(env: NodeJS.ProcessEnv = process.env) {
  const queueUrl = env[HandlerEnv.outboxQueueUrl];
  const eventBusName = env[HandlerEnv.outboxEventBus];
  if (Boolean(queueUrl) === Boolean(eventBusName)) {
    throw new Error(`Set exactly one of ${HandlerEnv.outboxQueueUrl} and ${HandlerEnv.outboxEventBus}`);
  }
  if (queueUrl) {
    // The queue is in the function's own region, so the regional endpoint (or
    // AWS_ENDPOINT_URL_SQS in local runs) is the right one, whatever host the queue URL names.
    return outboxDispatcher({ queueUrl, client: new SQSClient({ useQueueUrlAsEndpoint: false }) });
  }
  return outboxDispatcher({ eventBusName: eventBusName!, client: new EventBridgeClient({}) });
}

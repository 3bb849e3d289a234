import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { SQSClient } from '@aws-sdk/client-sqs';
import { IdemkitEnvironment } from '../../index.js';
import { outboxDispatcher } from '../../outbox/index.js';

/**
 * The outbox dispatcher of the example service, sending to the queue named by
 * `IDEMKIT_OUTBOX_QUEUE_URL` or the bus named by `IDEMKIT_OUTBOX_EVENT_BUS_NAME` (what the
 * `OutboxDispatcher` construct sets). `outboxDispatcher()` reads them by itself; the example
 * reads them here only to give the queue's client the local endpoint.
 *
 * @throws Error when neither or both are set
 * @example const handler = createOutboxDispatcherHandler({ IDEMKIT_OUTBOX_QUEUE_URL: url });
 */
export function createOutboxDispatcherHandler(env: NodeJS.ProcessEnv = process.env) {
  const queueUrl = env[IdemkitEnvironment.outboxQueueUrl];
  const eventBusName = env[IdemkitEnvironment.outboxEventBusName];
  if (Boolean(queueUrl) === Boolean(eventBusName)) {
    throw new Error(
      `Set exactly one of ${IdemkitEnvironment.outboxQueueUrl} and ${IdemkitEnvironment.outboxEventBusName}`,
    );
  }
  if (queueUrl) {
    // The queue is in the function's own region, so the regional endpoint (or
    // AWS_ENDPOINT_URL_SQS in local runs) is the right one, whatever host the queue URL names.
    return outboxDispatcher({ queueUrl, client: new SQSClient({ useQueueUrlAsEndpoint: false }) });
  }
  return outboxDispatcher({ eventBusName: eventBusName!, client: new EventBridgeClient({}) });
}

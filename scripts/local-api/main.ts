/**
 * `npm start`: the example payments API on http://127.0.0.1:3000 (or `PORT`), running the
 * real handlers and middleware against an embedded DynamoDB Local and SQS emulator. The
 * outbox is relayed to the order-events queue and consumed in the background, as the stream
 * and queue event source mappings would in AWS. Ctrl-C stops everything.
 */
import { SQSClient } from '@aws-sdk/client-sqs';
import type { Server } from 'node:http';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { DynamoDBJournal, outboxDispatcher } from '../../src/index.js';
import { createPaymentHandler } from '../../src/handlers/factories/create-payment.js';
import { createRefundHandler } from '../../src/handlers/factories/create-refund.js';
import { getPaymentHandler } from '../../src/handlers/factories/get-payment.js';
import { createOrderEventsConsumer } from '../../src/handlers/factories/order-events-consumer.js';
import { localLambdaContext } from '../local/lambda-context.js';
import { seedStock, startLocalPaymentsStack } from '../local/payments-stack.js';
import { EventSourceMapping } from '../local/sqs-queues.js';
import type { Route } from './router.js';
import { serveRoutes } from './server.js';

const RELAY_INTERVAL_MS = 500;

type Middy = (event: APIGatewayProxyEventV2, context: ReturnType<typeof localLambdaContext>) => Promise<unknown>;

/** Runs a handler the way Lambda would, with a fresh context per invocation. */
function asRoute(routeKey: string, functionName: string, handler: Middy): Route {
  return { routeKey, handler: (event) => handler(event, localLambdaContext({ functionName })) as Promise<APIGatewayProxyStructuredResultV2> };
}

async function main(): Promise<void> {
  const port = Number(process.env.PORT ?? 3000);
  const log = (line: string) => process.stdout.write(`${new Date().toISOString().slice(11, 23)}  ${line}\n`);
  process.stdout.write('Starting DynamoDB Local and the SQS emulator on 127.0.0.1');
  const stack = await startLocalPaymentsStack({ onProgress: () => process.stdout.write('.') });
  process.stdout.write(` ready (DynamoDB Local pid ${stack.dynamodb.pid}).\n`);
  // Filled in as they start, so a Ctrl-C during start-up still stops what is running.
  const running: { relay?: NodeJS.Timeout; server?: Server } = {};
  const stop = async () => {
    clearInterval(running.relay);
    running.server?.close();
    await stack.stop();
    log(`stopped DynamoDB Local (pid ${stack.dynamodb.pid}) and the SQS emulator`);
    process.exit(0);
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);

  await seedStock(stack, 'sku-red-mug', 100);
  const journal = new DynamoDBJournal({ tableName: stack.tables.journal, client: stack.client });
  const routes: Route[] = [
    asRoute('POST /payments', 'create-payment', createPaymentHandler({ journal, paymentsTable: stack.tables.payments }) as Middy),
    asRoute('GET /payments/{id}', 'get-payment', getPaymentHandler({ docClient: stack.doc, paymentsTable: stack.tables.payments }) as Middy),
    asRoute('POST /payments/{id}/refunds', 'create-refund', createRefundHandler({ journal, docClient: stack.doc, paymentsTable: stack.tables.payments }) as Middy),
  ];
  const served = await serveRoutes(routes, port, log);
  running.server = served.server;

  const sqsClient = new SQSClient({ endpoint: stack.sqs.endpoint, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
  const quiet = { info: () => undefined, error: (message: string, fields?: unknown) => log(`${message} ${JSON.stringify(fields)}`) } as never;
  const dispatch = outboxDispatcher({ queueUrl: stack.orderEvents.url, client: sqsClient, journalClient: stack.client, logger: quiet });
  const consumer = createOrderEventsConsumer({ journal, stockTable: stack.tables.stock, guardOptions: { logger: quiet } });
  const mapping = new EventSourceMapping(stack.sqsClient, stack.orderEvents, (event) => consumer(event, localLambdaContext({ functionName: 'order-events' })));
  let relaying = false;
  running.relay = setInterval(async () => {
    if (relaying) return;
    relaying = true;
    try {
      const { event } = await stack.outboxStream.deliver(dispatch);
      const events = event.Records.filter((r) => r.dynamodb?.Keys?.pk?.S?.startsWith('outbox#')).length;
      if (events > 0) log(`outbox: ${events} event(s) sent to the order-events queue`);
      const delivery = await mapping.deliverOnce({ waitSeconds: 0 });
      if (delivery.received > 0) log(`order-events consumer: ${delivery.received} message(s), ${delivery.failed.length} reported for retry`);
    } catch (error) {
      log(`relay: ${(error as Error).message}`);
    } finally {
      relaying = false;
    }
  }, RELAY_INTERVAL_MS);

  log(`payments API listening on ${served.url}  (POST /payments, GET /payments/{id}, POST /payments/{id}/refunds)`);
  log(`journal table ${stack.tables.journal} at ${stack.dynamodb.endpoint}; Ctrl-C to stop`);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});

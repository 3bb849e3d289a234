/**
 * `npm start`: the example payments API on http://127.0.0.1:3000 (or `PORT`), running the
 * real handlers and middleware against an embedded DynamoDB Local and SQS emulator. The
 * outbox is relayed to the order-events queue and consumed in the background, as the stream
 * and queue event source mappings would in AWS. Ctrl-C, SIGTERM, SIGHUP, the end of the parent
 * process and a start-up error all stop everything it started, by PID.
 */
import { SQSClient } from '@aws-sdk/client-sqs';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { DynamoDBJournal, outboxDispatcher } from '../../src/index.js';
import { createPaymentHandler } from '../../src/handlers/factories/create-payment.js';
import { createRefundHandler } from '../../src/handlers/factories/create-refund.js';
import { getPaymentHandler } from '../../src/handlers/factories/get-payment.js';
import { createOrderEventsConsumer } from '../../src/handlers/factories/order-events-consumer.js';
import { localLambdaContext } from '../local/lambda-context.js';
import { seedStock, startLocalPaymentsStack } from '../local/payments-stack.js';
import { Shutdown, StoppingError } from '../local/shutdown.js';
import { EventSourceMapping } from '../local/sqs-queues.js';
import type { Route } from './router.js';
import { serveRoutes } from './server.js';

const RELAY_INTERVAL_MS = 500;

type Middy = (event: APIGatewayProxyEventV2, context: ReturnType<typeof localLambdaContext>) => Promise<unknown>;

/** Runs a handler the way Lambda would, with a fresh context per invocation. */
function asRoute(routeKey: string, functionName: string, handler: Middy): Route {
  return {
    routeKey,
    handler: (event) =>
      handler(event, localLambdaContext({ functionName })) as Promise<APIGatewayProxyStructuredResultV2>,
  };
}

async function main(shutdown: Shutdown, log: (line: string) => void): Promise<void> {
  const port = Number(process.env.PORT ?? 3000);
  process.stdout.write('Starting DynamoDB Local and the SQS emulator on 127.0.0.1');
  const starting = startLocalPaymentsStack({ onProgress: () => process.stdout.write('.'), signal: shutdown.signal });
  const stack = await shutdown.start('DynamoDB Local and the SQS emulator', starting);
  process.stdout.write(` ready (DynamoDB Local pid ${stack.dynamodb.pid}).\n`);

  await seedStock(stack, 'sku-red-mug', 100);
  const journal = new DynamoDBJournal({ tableName: stack.tables.journal, client: stack.client });
  const routes: Route[] = [
    asRoute(
      'POST /payments',
      'create-payment',
      createPaymentHandler({ journal, paymentsTable: stack.tables.payments }) as Middy,
    ),
    asRoute(
      'GET /payments/{id}',
      'get-payment',
      getPaymentHandler({ docClient: stack.doc, paymentsTable: stack.tables.payments }) as Middy,
    ),
    asRoute(
      'POST /payments/{id}/refunds',
      'create-refund',
      createRefundHandler({ journal, docClient: stack.doc, paymentsTable: stack.tables.payments }) as Middy,
    ),
  ];
  const served = await shutdown.start('the API server', serveRoutes(routes, port, log));

  const sqsClient = new SQSClient({
    endpoint: stack.sqs.endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  const quiet = {
    info: () => undefined,
    error: (message: string, fields?: unknown) => log(`${message} ${JSON.stringify(fields)}`),
  } as never;
  const dispatch = outboxDispatcher({
    queueUrl: stack.orderEvents.url,
    client: sqsClient,
    journalClient: stack.client,
    logger: quiet,
  });
  const consumer = createOrderEventsConsumer({
    journal,
    stockTable: stack.tables.stock,
    guardOptions: { logger: quiet },
  });
  const mapping = new EventSourceMapping(stack.sqsClient, stack.orderEvents, (event) =>
    consumer(event, localLambdaContext({ functionName: 'order-events' })),
  );
  let relaying: Promise<void> | undefined;
  const relayOnce = async () => {
    try {
      const { event } = await stack.outboxStream.deliver(dispatch);
      const events = event.Records.filter((r) => r.dynamodb?.Keys?.pk?.S?.startsWith('outbox#')).length;
      if (events > 0) log(`outbox: ${events} event(s) sent to the order-events queue`);
      const delivery = await mapping.deliverOnce({ waitSeconds: 0 });
      if (delivery.received > 0)
        log(`order-events consumer: ${delivery.received} message(s), ${delivery.failed.length} reported for retry`);
    } catch (error) {
      log(`relay: ${(error as Error).message}`);
    }
  };
  const relay = setInterval(() => {
    relaying ??= relayOnce().finally(() => (relaying = undefined));
  }, RELAY_INTERVAL_MS);
  shutdown.onStop('the outbox relay', async () => {
    clearInterval(relay);
    await relaying;
  });

  log(`payments API listening on ${served.url}  (POST /payments, GET /payments/{id}, POST /payments/{id}/refunds)`);
  log(`journal table ${stack.tables.journal} at ${stack.dynamodb.endpoint}; Ctrl-C to stop`);
}

const log = (line: string) => process.stdout.write(`${new Date().toISOString().slice(11, 23)}  ${line}\n`);
const shutdown = new Shutdown({ log }).install();
main(shutdown, log).catch((error: unknown) => {
  if (error instanceof StoppingError) return;
  process.stdout.write('\n');
  log(`could not start: ${startupProblem(error)}`);
  void shutdown.run('start-up failed', 1);
});

/** A start-up error in words a user can act on. */
function startupProblem(error: unknown): string {
  const code = (error as { code?: string }).code;
  if (code === 'EADDRINUSE')
    return `port ${process.env.PORT ?? 3000} on 127.0.0.1 is already in use (another npm start?); set PORT to use another`;
  return error instanceof Error ? (error.stack ?? error.message) : String(error);
}

/**
 * `npm start`: the example payments API on http://127.0.0.1:3000 (or `PORT`; `PORT=0` for a
 * port the kernel picks), running the real handlers and middleware against an embedded DynamoDB
 * Local and SQS emulator. Its first line of output is the API's URL. The outbox is relayed to
 * the order-events queue and consumed in the background, as the stream and queue event source
 * mappings would in AWS. Ctrl-C, SIGTERM, SIGHUP, the end of the parent process and a start-up
 * error all stop everything it started, by PID.
 */
import { SQSClient } from '@aws-sdk/client-sqs';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { DynamoDBJournal } from '../../src/index.js';
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
import { outboxDispatcher } from '../../src/outbox/index.js';

const RELAY_INTERVAL_MS = 500;

/** The port `npm start` serves on when `PORT` is unset. */
const DEFAULT_PORT = 3000;

/** A start-up problem the user fixes by changing how they run it: reported without a stack. */
class UsageError extends Error {}

type Middy = (event: APIGatewayProxyEventV2, context: ReturnType<typeof localLambdaContext>) => Promise<unknown>;

/** Runs a handler the way Lambda would, with a fresh context per invocation. */
function asRoute(routeKey: string, functionName: string, handler: Middy): Route {
  return {
    routeKey,
    handler: (event) =>
      handler(event, localLambdaContext({ functionName })) as Promise<APIGatewayProxyStructuredResultV2>,
  };
}

async function main(shutdown: Shutdown, write: (text: string) => void, log: (line: string) => void): Promise<void> {
  const port = requestedPort();
  let serve: (routes: readonly Route[]) => void = () => undefined;
  const routes = new Promise<readonly Route[]>((resolve) => (serve = resolve));
  // The API takes its port before DynamoDB Local and the SQS emulator take their ephemeral ones,
  // so neither can take it first, and a port in use ends start-up before anything else started.
  // It lives in this process: exiting closes it, whatever stage start-up reached.
  const served = await serveRoutes(routes, port, log);
  write(`payments API at ${served.url} (requests wait until its services are up)\n`);
  write('Starting DynamoDB Local and the SQS emulator on 127.0.0.1');
  const starting = startLocalPaymentsStack({ onProgress: () => write('.'), signal: shutdown.signal });
  const stack = await shutdown.start('DynamoDB Local and the SQS emulator', starting);
  // Steps stop in reverse order: the API stops taking requests before its services go.
  shutdown.onStop('the API server', () => served.stop());
  write(` ready (DynamoDB Local pid ${stack.dynamodb.pid}).\n`);

  await seedStock(stack, 'sku-red-mug', 100);
  const journal = new DynamoDBJournal({ tableName: stack.tables.journal, client: stack.client });
  serve([
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
  ]);

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

/** Whether the last output left its line open (start-up's progress dots). */
let lineOpen = false;
const write = (text: string) => {
  process.stdout.write(text);
  lineOpen = !text.endsWith('\n');
};
const log = (line: string) => write(`${lineOpen ? '\n' : ''}${new Date().toISOString().slice(11, 23)}  ${line}\n`);
const shutdown = new Shutdown({ log }).install();
main(shutdown, write, log).catch((error: unknown) => {
  if (error instanceof StoppingError) return;
  log(`could not start: ${startupProblem(error)}`);
  void shutdown.run('start-up failed', 1);
});

/** The port asked for in `PORT`: {@link DEFAULT_PORT} when unset, 0 for one the kernel picks. */
function requestedPort(): number {
  const text = process.env.PORT ?? String(DEFAULT_PORT);
  const port = Number(text);
  if (text.trim() === '' || !Number.isInteger(port) || port < 0 || port > 65535)
    throw new UsageError(`PORT must be a port number from 0 to 65535 (0: one the kernel picks), not '${text}'`);
  return port;
}

/** A start-up error in words a user can act on. */
function startupProblem(error: unknown): string {
  const code = (error as { code?: string }).code;
  if (code === 'EADDRINUSE')
    return `port ${process.env.PORT ?? DEFAULT_PORT} on 127.0.0.1 is already in use (another npm start?); set PORT to use another, or PORT=0 for one the kernel picks`;
  if (error instanceof UsageError) return error.message;
  return error instanceof Error ? (error.stack ?? error.message) : String(error);
}

/**
 * One soak worker: a child process standing for a Lambda instance of the example payments
 * API. It runs the real handlers and middleware (`POST /payments`, `GET /payments/{id}`,
 * `POST /payments/{id}/refunds`) on invocations sent over IPC, each with the faults the run's
 * schedule handed it: DynamoDB throttling, latency and a lost answer through the SDK client's
 * middleware stack, and kill points where the worker stops and asks to be killed with
 * SIGKILL, so a request dies exactly there.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { AsyncLocalStorage } from 'node:async_hooks';
import { DynamoDBJournal } from '../../src/index.js';
import { createPaymentHandler } from '../../src/handlers/factories/create-payment.js';
import { createRefundHandler } from '../../src/handlers/factories/create-refund.js';
import { getPaymentHandler } from '../../src/handlers/factories/get-payment.js';
import { createFakePaymentRail, type PaymentRail } from '../../src/handlers/payment-rail.js';
import { localLambdaContext } from '../local/lambda-context.js';
import { seededRandom } from '../retry-storm/seeded-random.js';
import { addDynamoDBFaults, noFaultsFired, type CallFaults, type KillPoint } from './dynamodb-faults.js';
import type { FromWorker, ToWorker, WorkerConfig } from './worker-pool.js';

interface Invocation {
  readonly id: number;
  readonly killAt?: KillPoint;
  readonly faults: CallFaults;
}

type Handler = (event: APIGatewayProxyEventV2, context: Context) => Promise<unknown>;

const config = JSON.parse(process.argv[2] ?? '{}') as WorkerConfig;
const current = new AsyncLocalStorage<Invocation>();
const send = (message: FromWorker) => process.send?.(message);

/** Reports the kill point and waits for the SIGKILL that the pool sends by this process's PID. */
function dieAt(invocation: Invocation, point: KillPoint): Promise<never> {
  send({ type: 'kill-point', id: invocation.id, point });
  return new Promise<never>(() => undefined);
}

/** The example's fake rail, telling the pool when an effect began and stopping at the kill points around it. */
function watchedRail(rail: PaymentRail): PaymentRail {
  const around = async <T>(call: () => Promise<T>): Promise<T> => {
    const invocation = current.getStore();
    if (!invocation) return call();
    // The rail is only called after `beginEffect` committed: from here a kill leaves an effect behind.
    send({ type: 'effect-begun', id: invocation.id });
    if (invocation.killAt === 'after-begin-effect') await dieAt(invocation, 'after-begin-effect');
    const result = await call();
    if (invocation.killAt === 'after-charge') await dieAt(invocation, 'after-charge');
    return result;
  };
  return {
    charge: (request) => around(() => rail.charge(request)),
    refund: (request) => around(() => rail.refund(request)),
  };
}

const client = new DynamoDBClient({
  endpoint: config.dynamodbEndpoint,
  region: 'us-east-1',
  credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
});
addDynamoDBFaults(client, () => current.getStore()?.faults);
const docClient = DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });
const journal = new DynamoDBJournal({ tableName: config.tables.journal, client });
const rail = watchedRail(createFakePaymentRail());
const paymentsTable = config.tables.payments;
const handlers: Record<string, Handler> = {
  'POST /payments': createPaymentHandler({ journal, paymentsTable, rail }) as Handler,
  'GET /payments/{id}': getPaymentHandler({ docClient, paymentsTable }) as Handler,
  'POST /payments/{id}/refunds': createRefundHandler({ journal, docClient, paymentsTable, rail }) as Handler,
};

process.on('message', (message: ToWorker) => {
  if (message.type !== 'invoke') return;
  const { id, routeKey, event, plan } = message;
  const fired = noFaultsFired();
  const faults: CallFaults = {
    random: seededRandom(plan.seed),
    throttleShare: plan.throttleShare,
    latencyShare: plan.latencyShare,
    latencyMs: plan.latencyMs,
    dropAfter: plan.dropAfter,
    fired,
  };
  const invocation: Invocation = { id, killAt: plan.killAt, faults };
  if (plan.killAt === 'after-reserve') faults.killAfterReserve = () => dieAt(invocation, 'after-reserve');
  const handler = handlers[routeKey];
  void current.run(invocation, async () => {
    try {
      if (!handler) throw new Error(`No handler for ${routeKey}`);
      const context = localLambdaContext({ functionName: routeKey, timeoutMs: config.lambdaTimeoutMs });
      const result = (await handler(event, context)) as APIGatewayProxyStructuredResultV2;
      send({ type: 'result', id, result, fired });
    } catch (error) {
      send({ type: 'error', id, message: (error as Error).message, fired });
    }
  });
});
// The pool is gone (it ended or was killed): an instance without its runtime ends too.
process.on('disconnect', () => process.exit(0));
// One read before taking traffic loads the SDK's lazy parts, as Lambda's init phase would.
void docClient
  .send(new GetCommand({ TableName: paymentsTable, Key: { paymentId: 'warm-up' } }))
  .catch(() => undefined)
  .then(() => send({ type: 'ready' }));

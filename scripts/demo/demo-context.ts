import type {
  APIGatewayProxyEventV2,
  APIGatewayProxyStructuredResultV2,
  DynamoDBBatchResponse,
  DynamoDBStreamEvent,
  SQSBatchResponse,
  SQSEvent,
} from 'aws-lambda';
import { SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBJournal } from '../../src/index.js';
import { createPaymentHandler } from '../../src/handlers/factories/create-payment.js';
import { createPaymentsReadModel } from '../../src/handlers/factories/payments-read-model.js';
import { createOrderEventsConsumer } from '../../src/handlers/factories/order-events-consumer.js';
import { createFakePaymentRail } from '../../src/handlers/payment-rail.js';
import { PaymentsOperation } from '../../src/handlers/service-config.js';
import { toApiGatewayV2Event } from '../local/api-gateway-event.js';
import { localLambdaContext } from '../local/lambda-context.js';
import type { LocalPaymentsStack } from '../local/payments-stack.js';
import { TelemetryCapture, type AttemptLine } from './capture.js';
import { Narrator } from './narrator.js';
import { outboxDispatcher } from '../../src/outbox/index.js';
import { type Journal } from '../../src/entries/journal.js';

/** Lease of the demo's payment attempts: short, so a crashed attempt is taken over within seconds. */
export const DEMO_LEASE_MS = 1_500;

/** Everything a scenario needs: the local stack, the example handlers, the narrator. */
export class DemoContext {
  readonly capture = new TelemetryCapture();
  readonly rail = createFakePaymentRail({ latencyMs: 40 });
  readonly journal: DynamoDBJournal;

  constructor(
    readonly stack: LocalPaymentsStack,
    readonly narrator: Narrator,
  ) {
    this.journal = new DynamoDBJournal({ tableName: stack.tables.journal, client: stack.client });
  }

  /** A fresh `POST /payments` container (its own middleware instance), optionally on another journal. */
  paymentsContainer(journal: Journal = this.journal) {
    const handler = createPaymentHandler({
      journal,
      paymentsTable: this.stack.tables.payments,
      rail: this.rail,
      guardOptions: { leaseMs: DEMO_LEASE_MS, logger: this.capture.logger, metrics: this.capture.metrics },
    });
    return (event: APIGatewayProxyEventV2) =>
      handler(
        event,
        localLambdaContext({ functionName: 'create-payment' }),
      ) as Promise<APIGatewayProxyStructuredResultV2>;
  }

  /** The order-events consumer, as its Lambda would run it. */
  consumer(): (event: SQSEvent) => Promise<SQSBatchResponse> {
    const consume = createOrderEventsConsumer({
      journal: this.journal,
      stockTable: this.stack.tables.stock,
      guardOptions: { logger: this.capture.logger, metrics: this.capture.metrics },
    });
    return (event) => consume(event, localLambdaContext({ functionName: 'order-events' }));
  }

  /** The consumer of the payments table's stream that keeps the payment totals, as its Lambda would run it. */
  readModel(): (event: DynamoDBStreamEvent) => Promise<DynamoDBBatchResponse> {
    const consume = createPaymentsReadModel({
      journal: this.journal,
      paymentTotalsTable: this.stack.tables.paymentTotals,
      guardOptions: { logger: this.capture.logger, metrics: this.capture.metrics },
    });
    return (event) => consume(event, localLambdaContext({ functionName: 'payments-read-model' }));
  }

  /** The outbox dispatcher feeding the order-events queue. */
  dispatcher() {
    const client = new SQSClient({
      endpoint: this.stack.sqs.endpoint,
      region: 'us-east-1',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    });
    return outboxDispatcher({
      queueUrl: this.stack.orderEvents.url,
      client,
      journalClient: this.stack.client,
      logger: this.capture.logger,
    });
  }

  /** A `POST /payments` event with an idempotency key and a JSON body. */
  paymentRequest(key: string, body: Record<string, unknown>): APIGatewayProxyEventV2 {
    return toApiGatewayV2Event({
      method: 'POST',
      path: '/payments',
      routeKey: PaymentsOperation.createPayment,
      headers: { 'content-type': 'application/json', 'idempotency-key': key },
      body: JSON.stringify(body),
    });
  }

  /** Logs one HTTP answer on the timeline with the `idempotency_status` its attempt logged. */
  answer(actor: string, response: APIGatewayProxyStructuredResultV2, line: AttemptLine | undefined): void {
    const replayed = response.headers?.['Idempotent-Replayed'] === 'true' ? ', Idempotent-Replayed' : '';
    const body = typeof response.body === 'string' ? response.body : '';
    // Named for what the body says it is: a transfer is not a payment to the team reading the timeline.
    const [, kind, id] = /"(payment|transfer)Id":"([^"]+)"/.exec(body) ?? [];
    const problem = /"type":"[^"]*:([a-z-]+)"/.exec(body)?.[1];
    const what = id ? `${kind} ${id}` : problem ? `problem ${problem}` : body.slice(0, 60);
    this.narrator.event(
      actor,
      `← ${response.statusCode}${replayed}  ${what}   [idempotency_status=${line?.status ?? '-'}${line?.attempt ? `, attempt ${line.attempt}` : ''}]`,
    );
  }

  /** Charges the fake rail has made for any key so far. */
  get charges(): number {
    return this.rail.calls;
  }
}

/** Sleeps `ms` milliseconds. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

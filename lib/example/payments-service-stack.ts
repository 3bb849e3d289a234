import { CfnOutput, RemovalPolicy, Stack, Validations, type StackProps } from 'aws-cdk-lib';
import type { IAlarmAction } from 'aws-cdk-lib/aws-cloudwatch';
import { AttributeType, BillingMode, StreamViewType, Table } from 'aws-cdk-lib/aws-dynamodb';
import type { Construct } from 'constructs';
import {
  ExampleTableKey,
  ORDER_EVENTS_CONSUMER,
  HandlerEnv,
  PAYMENTS_READ_MODEL_CONSUMER,
  PAYMENTS_SERVICE_NAME,
  PaymentsOperation,
} from '../../src/handlers/service-config.js';
import {
  GuardedQueueConsumer,
  GuardedStreamConsumer,
  IdempotencyDashboard,
  IdempotencyJournalTable,
  OutboxDispatcher,
} from '../index.js';
import { exampleHandlerEntry } from './handler-entry.js';
import { PaymentsApi } from './payments-api.js';
import { PaymentsLambdalith } from './payments-lambdalith.js';

/** Properties of a {@link PaymentsServiceStack}. */
export interface PaymentsServiceStackProps extends StackProps {
  /**
   * JWT issuer URL. With `jwtAudience`, every route requires a token and each caller's
   * idempotency keys live in the scope of its `sub` claim.
   * @default - routes are open and every anonymous caller shares one tenant scope '-'
   */
  readonly jwtIssuer?: string;
  /**
   * Accepted JWT audiences (required with `jwtIssuer`).
   * @default - none
   */
  readonly jwtAudience?: string[];
  /**
   * Action run by every alarm (for example an SNS topic).
   * @default - alarms have no action
   */
  readonly alarmAction?: IAlarmAction;
}

/**
 * The example payments service: an HTTP API whose writes are idempotent (a function per route,
 * and the same routes again as one Express function, the Lambdalith, on the same records), an outbox that
 * turns confirmed payments into order events, a queue consumer that reserves stock
 * exactly once per event, and a consumer of the payments table's stream that projects
 * payment totals exactly once per change.
 *
 * @example
 * new PaymentsServiceStack(app, 'PaymentsService', { jwtIssuer, jwtAudience: ['payments'] });
 */
export class PaymentsServiceStack extends Stack {
  /** The idempotency journal. */
  public readonly journal: IdempotencyJournalTable;
  /** Payments, keyed by `paymentId`. */
  public readonly paymentsTable: Table;
  /** Stock levels, keyed by `sku`, attribute `available`. */
  public readonly stockTable: Table;
  /** Payment totals per tenant, currency and day, keyed by `totalId`: the read model. */
  public readonly paymentTotalsTable: Table;
  /** The HTTP API and its functions. */
  public readonly api: PaymentsApi;
  /** The same routes as one function behind an HTTP API of its own, on the same journal and scopes. */
  public readonly lambdalith: PaymentsLambdalith;
  /** The order-events queue and its consumer. */
  public readonly orderEvents: GuardedQueueConsumer;
  /** The consumer of the payments table's stream that keeps the payment totals. */
  public readonly paymentsReadModel: GuardedStreamConsumer;
  /** The outbox dispatcher feeding the order-events queue. */
  public readonly outbox: OutboxDispatcher;
  /** The dashboard and its alarms. */
  public readonly dashboard: IdempotencyDashboard;

  constructor(scope: Construct, id: string, props: PaymentsServiceStackProps = {}) {
    super(scope, id, props);
    this.journal = new IdempotencyJournalTable(this, 'Journal');
    this.paymentsTable = exampleTable(this, 'PaymentsTable', ExampleTableKey.payments, StreamViewType.NEW_IMAGE);
    this.stockTable = exampleTable(this, 'StockTable', ExampleTableKey.stock);
    this.paymentTotalsTable = exampleTable(this, 'PaymentTotalsTable', ExampleTableKey.paymentTotals);

    this.api = new PaymentsApi(this, 'Api', {
      journal: this.journal,
      paymentsTable: this.paymentsTable,
      serviceName: PAYMENTS_SERVICE_NAME,
      jwtIssuer: props.jwtIssuer,
      jwtAudience: props.jwtAudience,
    });
    this.lambdalith = new PaymentsLambdalith(this, 'Lambdalith', {
      journal: this.journal,
      paymentsTable: this.paymentsTable,
      serviceName: PAYMENTS_SERVICE_NAME,
      jwtIssuer: props.jwtIssuer,
      jwtAudience: props.jwtAudience,
    });

    this.orderEvents = new GuardedQueueConsumer(this, 'OrderEvents', {
      journal: this.journal,
      entry: exampleHandlerEntry('order-events-consumer'),
      consumerName: ORDER_EVENTS_CONSUMER,
      serviceName: PAYMENTS_SERVICE_NAME,
      environment: { [HandlerEnv.stockTable]: this.stockTable.tableName },
      alarmAction: props.alarmAction,
    });
    this.stockTable.grant(this.orderEvents.function, 'dynamodb:UpdateItem');

    this.paymentsReadModel = new GuardedStreamConsumer(this, 'PaymentsReadModel', {
      journal: this.journal,
      table: this.paymentsTable,
      entry: exampleHandlerEntry('payments-read-model'),
      consumerName: PAYMENTS_READ_MODEL_CONSUMER,
      serviceName: PAYMENTS_SERVICE_NAME,
      environment: { [HandlerEnv.paymentTotalsTable]: this.paymentTotalsTable.tableName },
      alarmAction: props.alarmAction,
    });
    this.paymentTotalsTable.grant(this.paymentsReadModel.function, 'dynamodb:UpdateItem');

    this.outbox = new OutboxDispatcher(this, 'Outbox', {
      journal: this.journal,
      entry: exampleHandlerEntry('outbox-dispatcher'),
      serviceName: PAYMENTS_SERVICE_NAME,
      destinationQueue: this.orderEvents.queue,
      alarmAction: props.alarmAction,
    });

    this.dashboard = new IdempotencyDashboard(this, 'Dashboard', {
      operations: Object.values(PaymentsOperation),
      consumers: [ORDER_EVENTS_CONSUMER, PAYMENTS_READ_MODEL_CONSUMER],
      deadLetterQueues: [
        this.orderEvents.deadLetterQueue,
        this.outbox.failureQueue,
        this.paymentsReadModel.failureQueue,
      ],
      alarmOnDeadLetterQueues: false,
      alarms: [
        this.orderEvents.deadLetterAlarm,
        this.outbox.failureAlarm,
        this.paymentsReadModel.failureAlarm,
        this.paymentsReadModel.iteratorAgeAlarm,
      ],
      journal: this.journal,
      alarmAction: props.alarmAction,
    });

    new CfnOutput(this, 'ApiUrl', { value: this.api.url, description: 'Base URL of the payments API' });
    new CfnOutput(this, 'LambdalithApiUrl', {
      value: this.lambdalith.url,
      description: 'Base URL of the same payments API served by one function (the Lambdalith)',
    });
    new CfnOutput(this, 'JournalTableName', {
      value: this.journal.tableName,
      description: 'Idempotency journal (retained on delete)',
    });
    new CfnOutput(this, 'PaymentsTableName', { value: this.paymentsTable.tableName });
    new CfnOutput(this, 'StockTableName', { value: this.stockTable.tableName });
    new CfnOutput(this, 'PaymentTotalsTableName', { value: this.paymentTotalsTable.tableName });
    new CfnOutput(this, 'OrderEventsQueueUrl', { value: this.orderEvents.queue.queueUrl });

    Validations.of(this).acknowledge({
      id: 'AwsSolutions-L1',
      reason: 'Functions pin nodejs24.x (DEFAULT_FUNCTION_RUNTIME), the runtime the handlers are built and tested for.',
    });
  }
}

/** An on-demand, encrypted, point-in-time-recoverable table; example data, so deleted with the stack. */
function exampleTable(scope: Construct, id: string, partitionKey: string, stream?: StreamViewType): Table {
  return new Table(scope, id, {
    partitionKey: { name: partitionKey, type: AttributeType.STRING },
    stream,
    billingMode: BillingMode.PAY_PER_REQUEST,
    pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
    removalPolicy: RemovalPolicy.DESTROY,
  });
}

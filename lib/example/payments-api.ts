import { HttpApi, HttpMethod, HttpStage } from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import { Construct } from 'constructs';
import { HandlerEnv, PaymentsOperation } from '../../src/handlers/service-config.js';
import { IdemkitFunction, type IIdempotencyJournal } from '../index.js';
import { exampleHttpApi, type ExampleHttpApiProps } from './example-http-api.js';
import { exampleHandlerEntry } from './handler-entry.js';

/** Properties of a {@link PaymentsApi}. */
export interface PaymentsApiProps extends ExampleHttpApiProps {
  /** The idempotency journal. */
  readonly journal: IIdempotencyJournal;
  /** The payments table (partition key `paymentId`). */
  readonly paymentsTable: ITable;
  /** `POWERTOOLS_SERVICE_NAME` of the functions. */
  readonly serviceName: string;
}

/**
 * The example HTTP API: `POST /payments`, `GET /payments/{id}` and
 * `POST /payments/{id}/refunds`, with access logs, stage throttling and an optional JWT authorizer.
 *
 * @example
 * new PaymentsApi(this, 'Api', { journal, paymentsTable, serviceName: 'payments' });
 */
export class PaymentsApi extends Construct {
  /** The HTTP API. */
  public readonly httpApi: HttpApi;
  /** The `$default` stage. */
  public readonly stage: HttpStage;
  /** `POST /payments` */
  public readonly createPaymentFunction: NodejsFunction;
  /** `GET /payments/{id}` */
  public readonly getPaymentFunction: NodejsFunction;
  /** `POST /payments/{id}/refunds` */
  public readonly createRefundFunction: NodejsFunction;

  constructor(scope: Construct, id: string, props: PaymentsApiProps) {
    super(scope, id);
    ({ httpApi: this.httpApi, stage: this.stage } = exampleHttpApi(this, 'PaymentsApi', props));

    const paymentsEnv = { [HandlerEnv.paymentsTable]: props.paymentsTable.tableName };
    // A guarded function's operation is named once, here: the runtime reads it (IDEMKIT_OPERATION) for its metric
    // dimension, which is what the dashboard and alarms query.
    const fn = (name: string, journal?: IIdempotencyJournal, operationName?: string) =>
      new IdemkitFunction(this, name, {
        entry: exampleHandlerEntry(kebab(name)),
        journal,
        operationName,
        serviceName: props.serviceName,
        environment: paymentsEnv,
      }).function;
    this.createPaymentFunction = fn('CreatePayment', props.journal, PaymentsOperation.createPayment);
    this.getPaymentFunction = fn('GetPayment');
    this.createRefundFunction = fn('CreateRefund', props.journal, PaymentsOperation.createRefund);
    props.paymentsTable.grant(this.createPaymentFunction, 'dynamodb:PutItem');
    props.paymentsTable.grant(this.getPaymentFunction, 'dynamodb:GetItem');
    props.paymentsTable.grant(this.createRefundFunction, 'dynamodb:GetItem', 'dynamodb:UpdateItem');

    const route = (path: string, method: HttpMethod, integrationId: string, handler: NodejsFunction) =>
      this.httpApi.addRoutes({
        path,
        methods: [method],
        integration: new HttpLambdaIntegration(integrationId, handler),
      });
    route('/payments', HttpMethod.POST, 'CreatePaymentIntegration', this.createPaymentFunction);
    route('/payments/{id}', HttpMethod.GET, 'GetPaymentIntegration', this.getPaymentFunction);
    route('/payments/{id}/refunds', HttpMethod.POST, 'CreateRefundIntegration', this.createRefundFunction);
  }

  /** The API's base URL. */
  public get url(): string {
    return this.stage.url;
  }
}

function kebab(name: string): string {
  return name.replace(/[a-z][A-Z]/g, (pair) => `${pair[0]}-${pair[1]}`).toLowerCase();
}

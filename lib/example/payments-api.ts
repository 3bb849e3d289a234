import { RemovalPolicy, Validations } from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import {
  HttpApi,
  HttpMethod,
  HttpStage,
  LogGroupLogDestination,
  type IHttpRouteAuthorizer,
} from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpJwtAuthorizer } from 'aws-cdk-lib/aws-apigatewayv2-authorizers';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { HandlerEnv, PaymentsOperation } from '../../src/handlers/service-config.js';
import { IdemkitFunction, type IIdempotencyJournal } from '../index.js';
import { exampleHandlerEntry } from './handler-entry.js';

/** Properties of a {@link PaymentsApi}. */
export interface PaymentsApiProps {
  /** The idempotency journal. */
  readonly journal: IIdempotencyJournal;
  /** The payments table (partition key `paymentId`). */
  readonly paymentsTable: ITable;
  /** `POWERTOOLS_SERVICE_NAME` of the functions. */
  readonly serviceName: string;
  /**
   * JWT issuer URL; with `jwtAudience`, every route requires a valid token and the tenant
   * is the token's `sub`.
   * @default - routes are open and every caller shares the tenant scope '-'
   */
  readonly jwtIssuer?: string;
  /**
   * Accepted JWT audiences.
   * @default - none (required with `jwtIssuer`)
   */
  readonly jwtAudience?: string[];
  /**
   * Steady-state requests per second of the stage.
   * @default 50
   */
  readonly throttlingRateLimit?: number;
  /**
   * Burst requests of the stage.
   * @default 100
   */
  readonly throttlingBurstLimit?: number;
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
    if (Boolean(props.jwtIssuer) !== Boolean(props.jwtAudience?.length)) {
      throw new Error(`PaymentsApi ${this.node.path}: give both 'jwtIssuer' and 'jwtAudience', or neither`);
    }
    const authorizer: IHttpRouteAuthorizer | undefined = props.jwtIssuer
      ? new HttpJwtAuthorizer('JwtAuthorizer', props.jwtIssuer, { jwtAudience: props.jwtAudience! })
      : undefined;
    this.httpApi = new HttpApi(this, 'HttpApi', { createDefaultStage: false, defaultAuthorizer: authorizer });

    const accessLogs = new LogGroup(this, 'AccessLogs', {
      retention: RetentionDays.ONE_MONTH,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    this.stage = new HttpStage(this, 'DefaultStage', {
      httpApi: this.httpApi,
      stageName: '$default',
      autoDeploy: true,
      throttle: { rateLimit: props.throttlingRateLimit ?? 50, burstLimit: props.throttlingBurstLimit ?? 100 },
      accessLogSettings: { destination: new LogGroupLogDestination(accessLogs), format: ACCESS_LOG_FORMAT },
    });

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

    if (!authorizer) {
      Validations.of(this.httpApi).acknowledge({
        id: 'AwsSolutions-APIG4',
        reason:
          "Without a JWT issuer the example routes are deliberately open and every caller shares the tenant scope '-'.",
      });
    }
  }

  /** The API's base URL. */
  public get url(): string {
    return this.stage.url;
  }
}

/** One JSON line per request; never headers, so idempotency keys and tokens stay out of logs. */
export const ACCESS_LOG_FORMAT = AccessLogFormat.custom(
  JSON.stringify({
    requestId: '$context.requestId',
    requestTime: '$context.requestTimeEpoch',
    sourceIp: '$context.identity.sourceIp',
    routeKey: '$context.routeKey',
    status: '$context.status',
    responseLength: '$context.responseLength',
    latencyMs: '$context.responseLatency',
    integrationError: '$context.integrationErrorMessage',
  }),
);

function kebab(name: string): string {
  return name.replace(/[a-z][A-Z]/g, (pair) => `${pair[0]}-${pair[1]}`).toLowerCase();
}

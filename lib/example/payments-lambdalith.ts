import { RemovalPolicy, Validations } from 'aws-cdk-lib';
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
import { HandlerEnv } from '../../src/handlers/service-config.js';
import { IdemkitFunction, type IIdempotencyJournal } from '../index.js';
import { exampleHandlerEntry } from './handler-entry.js';
import { ACCESS_LOG_FORMAT } from './payments-api.js';

/** Properties of a {@link PaymentsLambdalith}. */
export interface PaymentsLambdalithProps {
  /** The idempotency journal: the per-route functions' own, so a key moves between them and the Lambdalith. */
  readonly journal: IIdempotencyJournal;
  /** The payments table (partition key `paymentId`). */
  readonly paymentsTable: ITable;
  /** `POWERTOOLS_SERVICE_NAME` of the function. */
  readonly serviceName: string;
  /**
   * JWT issuer URL; with `jwtAudience`, every request requires a valid token and the tenant is
   * the token's `sub`, as on the per-route API (give both APIs the same, or their scopes differ).
   * @default - open, every caller shares the tenant scope '-'
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
 * The payments API as a Lambdalith: one function running the Express app
 * (`src/handlers/payments-lambdalith.ts`, behind `serverless-http`) for every route, behind the
 * route `ANY /{proxy+}` of an HTTP API of its own. It serves the same paths as `PaymentsApi`
 * (`POST /payments`, `GET /payments/{id}`, `POST /payments/{id}/refunds`) on the same journal with
 * the same scopes, so a client may send a retry to either API and a key never runs twice.
 *
 * Its own API, not `ANY /lambdalith/{proxy+}` on the per-route one: the concrete path is part of a
 * request's operation and fingerprint, so a prefixed path is another request, and a key moved to
 * it would run again (or, its operation pinned, be refused 422) instead of replaying. In one API,
 * HTTP API routes the most specific route first: `ANY /{proxy+}` beside the per-route routes takes
 * over each route whose own route is deleted.
 *
 * @example
 * new PaymentsLambdalith(this, 'Lambdalith', { journal, paymentsTable, serviceName: 'payments' });
 */
export class PaymentsLambdalith extends Construct {
  /** The Lambdalith's HTTP API. */
  public readonly httpApi: HttpApi;
  /** The `$default` stage. */
  public readonly stage: HttpStage;
  /** The function serving every route. */
  public readonly function: NodejsFunction;

  constructor(scope: Construct, id: string, props: PaymentsLambdalithProps) {
    super(scope, id);
    if (Boolean(props.jwtIssuer) !== Boolean(props.jwtAudience?.length)) {
      throw new Error(`PaymentsLambdalith ${this.node.path}: give both 'jwtIssuer' and 'jwtAudience', or neither`);
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

    // No operationName: it would set IDEMKIT_OPERATION, which the guard takes over the route pattern,
    // and every route of the app would share one scope. Each route's operation is its pattern.
    this.function = new IdemkitFunction(this, 'Function', {
      entry: exampleHandlerEntry('payments-lambdalith'),
      journal: props.journal,
      serviceName: props.serviceName,
      environment: { [HandlerEnv.paymentsTable]: props.paymentsTable.tableName },
    }).function;
    props.paymentsTable.grant(this.function, 'dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem');

    this.httpApi.addRoutes({
      path: '/{proxy+}',
      methods: [HttpMethod.ANY],
      integration: new HttpLambdaIntegration('LambdalithIntegration', this.function),
    });

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

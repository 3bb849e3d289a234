import { HttpApi, HttpMethod, HttpStage } from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import { Construct } from 'constructs';
import { HandlerEnv } from '../../src/handlers/service-config.js';
import { IdemkitFunction, type IIdempotencyJournal } from '../index.js';
import { exampleHandlerEntry } from './handler-entry.js';
import { exampleHttpApi, type ExampleHttpApiProps } from './example-http-api.js';

/** Properties of a {@link PaymentsLambdalith}. */
export interface PaymentsLambdalithProps extends ExampleHttpApiProps {
  /** The idempotency journal: the per-route functions' own, so a key moves between them and the Lambdalith. */
  readonly journal: IIdempotencyJournal;
  /** The payments table (partition key `paymentId`). */
  readonly paymentsTable: ITable;
  /** `POWERTOOLS_SERVICE_NAME` of the function. */
  readonly serviceName: string;
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
    ({ httpApi: this.httpApi, stage: this.stage } = exampleHttpApi(this, 'PaymentsLambdalith', props));

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
  }

  /** The API's base URL. */
  public get url(): string {
    return this.stage.url;
  }
}

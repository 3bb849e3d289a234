import { RemovalPolicy, Validations } from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import { HttpApi, HttpStage, LogGroupLogDestination, type IHttpRouteAuthorizer } from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpJwtAuthorizer } from 'aws-cdk-lib/aws-apigatewayv2-authorizers';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';

/** How the example's HTTP APIs are fronted: the JWT authorizer and the stage's throttling. */
export interface ExampleHttpApiProps {
  /**
   * JWT issuer URL; with `jwtAudience`, every request requires a valid token and the tenant is
   * the token's `sub` (give the per-route API and the Lambdalith the same, or their scopes differ).
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
 * Builds, inside `scope`, the HTTP API shell both example APIs share: the optional JWT authorizer,
 * the `$default` stage with throttling and access logs, and cdk-nag's acknowledgement of open
 * routes. The children keep the ids the APIs always gave them, so their logical ids do not move.
 *
 * @throws Error when only one of `jwtIssuer` and `jwtAudience` is given
 */
export function exampleHttpApi(
  scope: Construct,
  construct: string,
  props: ExampleHttpApiProps,
): { readonly httpApi: HttpApi; readonly stage: HttpStage } {
  if (Boolean(props.jwtIssuer) !== Boolean(props.jwtAudience?.length)) {
    throw new Error(`${construct} ${scope.node.path}: give both 'jwtIssuer' and 'jwtAudience', or neither`);
  }
  const authorizer: IHttpRouteAuthorizer | undefined = props.jwtIssuer
    ? new HttpJwtAuthorizer('JwtAuthorizer', props.jwtIssuer, { jwtAudience: props.jwtAudience! })
    : undefined;
  const httpApi = new HttpApi(scope, 'HttpApi', { createDefaultStage: false, defaultAuthorizer: authorizer });
  const accessLogs = new LogGroup(scope, 'AccessLogs', {
    retention: RetentionDays.ONE_MONTH,
    removalPolicy: RemovalPolicy.DESTROY,
  });
  const stage = new HttpStage(scope, 'DefaultStage', {
    httpApi,
    stageName: '$default',
    autoDeploy: true,
    throttle: { rateLimit: props.throttlingRateLimit ?? 50, burstLimit: props.throttlingBurstLimit ?? 100 },
    accessLogSettings: { destination: new LogGroupLogDestination(accessLogs), format: ACCESS_LOG_FORMAT },
  });
  if (!authorizer) {
    Validations.of(httpApi).acknowledge({
      id: 'AwsSolutions-APIG4',
      reason:
        "Without a JWT issuer the example routes are deliberately open and every caller shares the tenant scope '-'.",
    });
  }
  return { httpApi, stage };
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

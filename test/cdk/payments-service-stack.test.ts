import { Validations } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { PaymentsServiceStack } from '../../lib/example/payments-service-stack.js';
import { actionsOf, policyStatements, resourcesOf, testApp } from './test-app.js';

describe('PaymentsServiceStack', () => {
  const app = testApp();
  const open = new PaymentsServiceStack(app, 'Open');
  const secured = new PaymentsServiceStack(app, 'Secured', {
    jwtIssuer: 'https://issuer.example.com/',
    jwtAudience: ['payments'],
  });
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  let synthError: unknown;
  try {
    app.synth();
  } catch (error) {
    synthError = error;
  }
  const template = Template.fromStack(open);
  const securedTemplate = Template.fromStack(secured);

  it('passes the AWS Solutions checks of cdk-nag', () => {
    expect(synthError === undefined ? '' : String(synthError)).toBe('');
  });

  it.each(['POST /payments', 'GET /payments/{id}', 'POST /payments/{id}/refunds'])('routes %s', (routeKey) => {
    template.hasResourceProperties('AWS::ApiGatewayV2::Route', { RouteKey: routeKey, AuthorizationType: 'NONE' });
  });

  it('serves the same routes as one function behind ANY /{proxy+} of a second HTTP API: the Lambdalith', () => {
    template.resourceCountIs('AWS::ApiGatewayV2::Api', 2);
    template.hasResourceProperties('AWS::ApiGatewayV2::Route', {
      RouteKey: 'ANY /{proxy+}',
      AuthorizationType: 'NONE',
      Target: { 'Fn::Join': ['', ['integrations/', { Ref: Match.stringLikeRegexp('^LambdalithHttpApi') }]] },
    });
    template.resourcePropertiesCountIs(
      'AWS::ApiGatewayV2::Stage',
      { StageName: '$default', DefaultRouteSettings: { ThrottlingRateLimit: 50, ThrottlingBurstLimit: 100 } },
      2,
    );
  });

  it('runs the Lambdalith on the journal and payments table of the per-route functions, with no operation of its own', () => {
    const [lambdalith] = Object.values(template.findResources('AWS::Lambda::Function')).filter((fn) =>
      JSON.stringify(fn.Properties.Role).includes('LambdalithFunction'),
    );
    const perRoute = Object.values(template.findResources('AWS::Lambda::Function')).find(
      (fn) => fn.Properties.Environment.Variables.IDEMKIT_OPERATION === 'POST /payments',
    );
    const variables = lambdalith!.Properties.Environment.Variables;

    expect(variables.IDEMKIT_TABLE_NAME).toEqual(perRoute!.Properties.Environment.Variables.IDEMKIT_TABLE_NAME);
    expect(variables.PAYMENTS_TABLE_NAME).toEqual({ Ref: expect.stringMatching(/^PaymentsTable/) });
    // IDEMKIT_OPERATION would put every route of the app in one scope: each route's operation is its pattern.
    expect(variables.IDEMKIT_OPERATION).toBeUndefined();
  });

  it('protects every route with the JWT authorizer when an issuer is given', () => {
    template.resourceCountIs('AWS::ApiGatewayV2::Authorizer', 0);
    securedTemplate.resourceCountIs('AWS::ApiGatewayV2::Authorizer', 2);
    securedTemplate.hasResourceProperties('AWS::ApiGatewayV2::Authorizer', {
      AuthorizerType: 'JWT',
      JwtConfiguration: { Issuer: 'https://issuer.example.com/', Audience: ['payments'] },
    });
    securedTemplate.allResourcesProperties('AWS::ApiGatewayV2::Route', { AuthorizationType: 'JWT' });
  });

  it('logs access and throttles the default stage', () => {
    template.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      StageName: '$default',
      AutoDeploy: true,
      AccessLogSettings: { DestinationArn: Match.anyValue(), Format: Match.stringLikeRegexp('\\$context.requestId') },
      DefaultRouteSettings: { ThrottlingRateLimit: 50, ThrottlingBurstLimit: 100 },
    });
  });

  it('runs every function on nodejs24.x with tracing and JSON logs', () => {
    template.resourceCountIs('AWS::Lambda::Function', 7);
    template.allResourcesProperties('AWS::Lambda::Function', {
      Runtime: 'nodejs24.x',
      TracingConfig: { Mode: 'Active' },
      LoggingConfig: Match.objectLike({ LogFormat: 'JSON' }),
      Environment: { Variables: Match.objectLike({ POWERTOOLS_SERVICE_NAME: 'payments' }) },
    });
  });

  it('creates the journal, payments, stock and payment totals tables', () => {
    template.resourceCountIs('AWS::DynamoDB::Table', 4);
    template.hasResourceProperties('AWS::DynamoDB::Table', {
      KeySchema: [{ AttributeName: 'totalId', KeyType: 'HASH' }],
    });
    template.hasResourceProperties('AWS::DynamoDB::Table', {
      KeySchema: [{ AttributeName: 'paymentId', KeyType: 'HASH' }],
    });
    template.hasResourceProperties('AWS::DynamoDB::Table', { KeySchema: [{ AttributeName: 'sku', KeyType: 'HASH' }] });
  });

  it('feeds the order-events queue from the outbox', () => {
    template.hasResourceProperties('AWS::Lambda::Function', {
      Environment: {
        Variables: Match.objectLike({ IDEMKIT_OUTBOX_QUEUE_URL: { Ref: Match.stringLikeRegexp('^OrderEventsQueue') } }),
      },
    });
    template.hasResourceProperties('AWS::Lambda::Function', {
      Environment: {
        Variables: Match.objectLike({
          IDEMKIT_CONSUMER: 'order-events',
          STOCK_TABLE_NAME: { Ref: Match.stringLikeRegexp('^StockTable') },
        }),
      },
    });
  });

  it("projects the payments table's stream into the payment totals through a guarded stream consumer", () => {
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      EventSourceArn: { 'Fn::GetAtt': [Match.stringLikeRegexp('^PaymentsTable'), 'StreamArn'] },
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      BisectBatchOnFunctionError: false,
    });
    template.hasResourceProperties('AWS::Lambda::Function', {
      Environment: {
        Variables: Match.objectLike({
          IDEMKIT_CONSUMER: 'payments-read-model',
          PAYMENT_TOTALS_TABLE_NAME: { Ref: Match.stringLikeRegexp('^PaymentTotalsTable') },
        }),
      },
    });
  });

  it('never grants a DynamoDB action on *, except ListStreams', () => {
    const wildcards = policyStatements(template).filter(
      ({ statement }) =>
        resourcesOf(statement).includes('*') &&
        actionsOf(statement).some((action) => action.startsWith('dynamodb:') && action !== 'dynamodb:ListStreams'),
    );
    expect(wildcards).toEqual([]);
  });

  it('gives each guarded function journal access and only its own table actions', () => {
    const byPolicy = (id: RegExp) =>
      policyStatements(template)
        .filter(({ policyId }) => id.test(policyId))
        .filter(({ statement }) => actionsOf(statement).some((a) => a.startsWith('dynamodb:')))
        .map(({ statement }) => ({
          actions: actionsOf(statement).sort(),
          resource: JSON.stringify(statement.Resource),
        }));
    expect(byPolicy(/^ApiCreatePayment/)).toEqual(
      expect.arrayContaining([{ actions: ['dynamodb:PutItem'], resource: expect.stringContaining('PaymentsTable') }]),
    );
    expect(byPolicy(/^ApiGetPayment/)).toEqual([
      { actions: ['dynamodb:GetItem'], resource: expect.stringContaining('PaymentsTable') },
    ]);
    expect(byPolicy(/^ApiCreateRefund/)).toEqual(
      expect.arrayContaining([
        { actions: ['dynamodb:GetItem', 'dynamodb:UpdateItem'], resource: expect.stringContaining('PaymentsTable') },
      ]),
    );
    expect(byPolicy(/^OrderEventsConsumer/)).toEqual(
      expect.arrayContaining([{ actions: ['dynamodb:UpdateItem'], resource: expect.stringContaining('StockTable') }]),
    );
    expect(byPolicy(/^PaymentsReadModel/)).toEqual(
      expect.arrayContaining([
        { actions: ['dynamodb:UpdateItem'], resource: expect.stringContaining('PaymentTotalsTable') },
      ]),
    );
    expect(byPolicy(/^LambdalithFunction/)).toEqual(
      expect.arrayContaining([
        {
          actions: ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem'],
          resource: expect.stringContaining('PaymentsTable'),
        },
      ]),
    );
    for (const id of [
      /^ApiCreatePayment/,
      /^ApiCreateRefund/,
      /^LambdalithFunction/,
      /^OrderEventsConsumer/,
      /^PaymentsReadModel/,
    ]) {
      expect(byPolicy(id).some(({ resource }) => resource.includes('JournalTable'))).toBe(true);
    }
  });

  it('outputs the URLs of both APIs and the table names', () => {
    template.hasOutput('ApiUrl', {});
    template.hasOutput('LambdalithApiUrl', {});
    template.hasOutput('JournalTableName', { Value: { Ref: Match.stringLikeRegexp('^JournalTable') } });
    template.hasOutput('PaymentsTableName', { Value: { Ref: Match.stringLikeRegexp('^PaymentsTable') } });
  });

  it('builds a dashboard with alarms for every guarded operation and the consumer', () => {
    template.resourceCountIs('AWS::CloudWatch::Dashboard', 1);
    for (const filter of [
      "Operation = 'POST /payments'",
      "Operation = 'POST /payments/{id}/refunds'",
      "Consumer = 'order-events'",
    ]) {
      template.hasResourceProperties('AWS::CloudWatch::Alarm', {
        Metrics: [Match.objectLike({ Expression: Match.stringLikeRegexp(`WHERE ${filter.replace(/[{}/]/g, '.')}`) })],
      });
    }
  });
});

import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { PaymentsServiceStack } from '../lib/example/payments-service-stack.js';

/**
 * The example payments service. Optional context:
 * `-c jwtIssuer=https://issuer.example.com/ -c jwtAudience=payments` protects every route.
 */
const app = new App();
const jwtIssuer: string | undefined = app.node.tryGetContext('jwtIssuer');
const jwtAudience: string | undefined = app.node.tryGetContext('jwtAudience');

new PaymentsServiceStack(app, 'PaymentsService', {
  description: 'idemkit example: idempotent payments API, outbox and exactly-once stock reservation',
  jwtIssuer,
  jwtAudience: jwtAudience?.split(',').map((audience) => audience.trim()),
  env: { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION },
});

Validations.of(app).addPlugins(new AwsSolutionsChecks(app));

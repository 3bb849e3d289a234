import { tsImport } from 'tsx/esm/api';
import { startSqsLocal } from '../../scripts/local/sqs-local.mjs';

/**
 * Starts one DynamoDB Local (through `idemkit/testing`'s launcher, from source) and one SQS
 * emulator for the whole run. Workers inherit the endpoints through the environment; the
 * teardown ends both.
 */
export default async function globalSetup() {
  const { startDynamoDBLocal } = await tsImport('../../src/testing/index.ts', import.meta.url);
  const [dynamo, sqs] = await Promise.all([startDynamoDBLocal(), startSqsLocal()]);
  globalThis.__idemkitServices = { dynamo, sqs };
  process.env.IDEMKIT_TEST_DYNAMODB_ENDPOINT = dynamo.endpoint;
  process.env.IDEMKIT_TEST_SQS_ENDPOINT = sqs.endpoint;
  // Any client a test builds without an explicit endpoint talks to the local services, never to AWS.
  process.env.AWS_ENDPOINT_URL_DYNAMODB = dynamo.endpoint;
  process.env.AWS_ENDPOINT_URL_SQS = sqs.endpoint;
  process.env.AWS_REGION = 'us-east-1';
  process.env.AWS_ACCESS_KEY_ID = 'local';
  process.env.AWS_SECRET_ACCESS_KEY = 'local';
  process.env.POWERTOOLS_DEV = 'true';
  process.env.POWERTOOLS_LOG_LEVEL = process.env.POWERTOOLS_LOG_LEVEL ?? 'SILENT';
  // The AWS SDK's Node 20 notice, once per test file and per process a suite starts (the demo, the soak's workers):
  // the SDK's own switch turns it off (CI still runs every suite on Node 22 and 24).
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
}

import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { GuardOptions, httpIdempotency } from '../index.js';

/** Any journal the guards accept (`DynamoDBJournal` in Lambda, `MemoryJournal` in unit tests). */
export type AnyJournal = Parameters<typeof httpIdempotency>[0]['journal'];

/** Guard options the example handlers let a local runner or a test set. */
export type ExampleGuardOptions = Pick<GuardOptions, 'leaseMs' | 'metrics' | 'logger' | 'clock' | 'localCache'>;

/**
 * One DocumentClient per Lambda instance. `AWS_ENDPOINT_URL_DYNAMODB` (read by the SDK
 * itself) points it at DynamoDB Local.
 */
export function createDocumentClient(): DynamoDBDocumentClient {
  return DynamoDBDocumentClient.from(new DynamoDBClient({}), { marshallOptions: { removeUndefinedValues: true } });
}

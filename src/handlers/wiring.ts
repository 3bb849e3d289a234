import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { GuardOptions, httpIdempotency } from '../index.js';

/**
 * What the example's Lambda entries share: one DocumentClient per instance, their required
 * environment variables, and the journal and guard option types the handler factories take.
 */

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

/**
 * Reads a required environment variable of an example handler.
 *
 * @throws Error naming the variable when it is missing or empty, so a misconfigured
 *   function fails at init with a clear message instead of on its first write.
 * @example const tableName = requiredEnv('PAYMENTS_TABLE_NAME');
 */
export function requiredEnv(name: string, env: NodeJS.ProcessEnv = process.env): string {
  const value = env[name];
  if (value === undefined || value === '') throw new Error(`Environment variable ${name} is required`);
  return value;
}

import { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import { StreamPoller } from '../../scripts/local/stream-poller.js';
import { localClient } from './dynamodb.js';

/** A client of the DynamoDB Local Streams API started by the global setup. */
export function localStreamsClient(): DynamoDBStreamsClient {
  return new DynamoDBStreamsClient({
    endpoint: process.env.IDEMKIT_TEST_DYNAMODB_ENDPOINT,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
}

/** A poller reading the stream of a DynamoDB Local table from its first record. */
export function localStreamPoller(tableName: string, batchSize?: number): StreamPoller {
  return new StreamPoller({ tableName, dynamodb: localClient(), streams: localStreamsClient(), batchSize });
}

import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { ListQueuesCommand, SQSClient } from '@aws-sdk/client-sqs';

describe('local services', () => {
  it('serves DynamoDB Local on loopback', async () => {
    const client = new DynamoDBClient({ endpoint: process.env.IDEMKIT_TEST_DYNAMODB_ENDPOINT });
    const out = await client.send(new ListTablesCommand({}));
    expect(out.TableNames).toEqual(expect.any(Array));
    expect(process.env.IDEMKIT_TEST_DYNAMODB_ENDPOINT).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });
  it('serves the SQS emulator on loopback', async () => {
    const client = new SQSClient({ endpoint: process.env.IDEMKIT_TEST_SQS_ENDPOINT });
    const out = await client.send(new ListQueuesCommand({}));
    expect(out.$metadata.httpStatusCode).toBe(200);
  });
});

import { Logger } from '@aws-lambda-powertools/logger';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';

/** A logger whose lines are captured by message, without printing them. */
export function streamLogger() {
  const logger = new Logger({ serviceName: 'test', logLevel: 'SILENT' });
  const errors = jest.spyOn(logger, 'error');
  const infos = jest.spyOn(logger, 'info');
  const lines = (message: string) =>
    [...errors.mock.calls, ...infos.mock.calls]
      .filter((call) => call[0] === message)
      .map((call) => call[1] as unknown as Record<string, unknown>);
  return { logger, lines };
}

/** A stage-only read model update: adds `amount` to the total of `id` in `table`. */
export function addToTotal(table: string, id: string, amount: number) {
  return {
    Update: {
      TableName: table,
      Key: { pk: id },
      UpdateExpression: 'ADD #total :amount, projections :one',
      ExpressionAttributeNames: { '#total': 'total' },
      ExpressionAttributeValues: { ':amount': amount, ':one': 1 },
    },
  };
}

/** The item `pk` of `table`, read consistently. */
export async function itemOf(client: DynamoDBClient, table: string, pk: string) {
  const out = await DynamoDBDocumentClient.from(client).send(
    new GetCommand({ TableName: table, Key: { pk }, ConsistentRead: true }),
  );
  return out.Item;
}

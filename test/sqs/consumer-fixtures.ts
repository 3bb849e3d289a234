import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import type { SQSRecord } from 'aws-lambda';
import { DynamoDBJournal } from '../../src/journal/index.js';
import { MetricName } from '../../src/telemetry/index.js';
import { createJournalTable, localClient } from '../support/dynamodb.js';

/** A journal on a fresh DynamoDB Local table. */
export async function localJournal() {
  const client = localClient();
  const tableName = await createJournalTable(client);
  return { client, tableName, journal: new DynamoDBJournal({ tableName, client }) };
}

/** A record handler that remembers the bodies it handled and fails the ones `fails` picks. */
export function recordingHandler(fails: (record: SQSRecord, attempt: number) => boolean = () => false) {
  const handled: string[] = [];
  const attempts = new Map<string, number>();
  const handler = async (record: SQSRecord) => {
    const attempt = (attempts.get(record.body) ?? 0) + 1;
    attempts.set(record.body, attempt);
    if (fails(record, attempt)) throw new Error(`handler failed on ${record.body}`);
    handled.push(record.body);
  };
  return { handled, handler };
}

/** Counts EMF metrics by name without printing them. */
export function metricCounter() {
  const added = jest.spyOn(Metrics.prototype, 'addMetric').mockImplementation(function (this: Metrics) {
    return this;
  });
  const dimensions = jest.spyOn(Metrics.prototype, 'addDimension');
  return {
    count: (name: MetricName) => added.mock.calls.filter((call) => call[0] === name).length,
    dimensions: () => dimensions.mock.calls.map((call) => [call[0], call[1]]),
    restore: () => {
      added.mockRestore();
      dimensions.mockRestore();
    },
  };
}

/** A logger whose reported-record lines are captured. */
export function capturedLogger() {
  const logger = new Logger({ serviceName: 'test' });
  const errors = jest.spyOn(logger, 'error');
  const infos = jest.spyOn(logger, 'info');
  const reported = () =>
    [...errors.mock.calls, ...infos.mock.calls]
      .filter((call) => call[0] === 'sqs record reported as failed')
      .map((call) => call[1] as unknown as Record<string, unknown>);
  return { logger, reported };
}

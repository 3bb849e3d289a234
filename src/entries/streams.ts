/**
 * `idemkit/streams`: what a guarded Kinesis or DynamoDB Streams consumer needs and nothing
 * more — `kinesisConsumer`, `dynamodbStreamConsumer`, and what every entry exports (the
 * journals, `idempotencyOf`, the errors). No SQS consumer, no HTTP middleware, no outbox
 * dispatcher, no caller-side client.
 *
 * @example
 * import { DynamoDBJournal, kinesisConsumer } from 'idemkit/streams';
 * export const handler = kinesisConsumer(reserveStock, { journal: new DynamoDBJournal(), messageId: (r) => r.data.orderId });
 *
 * @packageDocumentation
 */
export * from './common.js';
export * from '../streams/index.js';

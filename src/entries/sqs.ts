/**
 * `idemkit/sqs`: what a guarded queue consumer needs and nothing more — `sqsConsumer`, the
 * message id readers, and what every entry exports (the journals, `idempotencyOf`, the errors). No HTTP middleware, no
 * outbox dispatcher, no caller-side client.
 *
 * @example
 * import { DynamoDBJournal, fromMessageAttribute, sqsConsumer } from 'idemkit/sqs';
 * export const handler = sqsConsumer(reserveStock, { journal: new DynamoDBJournal(), messageId: fromMessageAttribute('eventId') });
 *
 * @packageDocumentation
 */
export * from './common.js';
export { OUTBOX_EVENT_ID_ATTRIBUTE } from '../outbox/index.js';
export * from '../sqs/index.js';

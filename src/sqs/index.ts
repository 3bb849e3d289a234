export { sqsConsumer } from './sqs-consumer.js';
export type { SqsConsumerOptions } from './sqs-consumer-options.js';
export type { SqsRecordHandler } from './sqs-consumer.js';
export { fromBodyField, fromMessageAttribute } from './message-id.js';

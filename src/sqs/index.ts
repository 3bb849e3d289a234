export { sqsConsumer, type SqsRecordHandler } from './sqs-consumer.js';
export { fromBodyField, fromMessageAttribute, type SqsConsumerOptions } from './sqs-consumer-options.js';

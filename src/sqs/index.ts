export { sqsConsumer, type SqsRecordHandler } from './sqs-consumer.js';
export {
  DEFAULT_SQS_CONSUMER_OPTIONS,
  fromBodyField,
  fromMessageAttribute,
  type SqsConsumerOptions,
} from './sqs-consumer-options.js';

export { kinesisConsumer, type KinesisRecordHandler } from './kinesis-consumer.js';
export { dynamodbStreamConsumer, type DynamoDBStreamRecordHandler } from './dynamodb-stream-consumer.js';
export {
  DEFAULT_DYNAMODB_STREAM_CONSUMER_OPTIONS,
  DEFAULT_KINESIS_CONSUMER_OPTIONS,
  type DynamoDBStreamConsumerOptions,
  type DynamoDBStreamConsumerRecord,
  type KinesisConsumerOptions,
  type KinesisConsumerRecord,
  type KinesisDataFormat,
} from './stream-consumer-options.js';
export type { StreamNumber } from './stream-image.js';

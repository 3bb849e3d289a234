export {
  recordBatchConsumer,
  type BatchItemFailures,
  type ReadRecordHandler,
  type RecordSource,
} from './record-batch.js';
export {
  resolveConsumerSettings,
  type ConsumerFactory,
  type ConsumerOptions,
  type ConsumerSettings,
} from './consumer-options.js';

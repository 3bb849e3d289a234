export * from '../../scripts/local/sqs-queues.js';
export * from '../../scripts/local/sqs-records.js';

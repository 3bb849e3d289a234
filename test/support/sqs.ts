export * from '../../scripts/local/sqs-queues.js';

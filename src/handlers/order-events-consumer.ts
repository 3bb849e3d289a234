import { DynamoDBJournal, IdemkitEnvironment } from '../index.js';
import { createDocumentClient, requiredEnv } from './wiring.js';
import { HandlerEnv, ORDER_EVENTS_CONSUMER } from './service-config.js';
import { createOrderEventsConsumer } from './factories/order-events-consumer.js';

/** Lambda entry point, configured from the environment. */
export const handler = createOrderEventsConsumer({
  journal: new DynamoDBJournal({ client: createDocumentClient() }), // the table named by IDEMKIT_TABLE_NAME
  stockTable: requiredEnv(HandlerEnv.stockTable),
  consumer: process.env[IdemkitEnvironment.consumer] || ORDER_EVENTS_CONSUMER,
});

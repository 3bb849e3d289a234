import { createDocumentClient, journalFromEnvironment } from './clients.js';
import { requiredEnv } from './environment.js';
import { HandlerEnv, ORDER_EVENTS_CONSUMER } from './service-config.js';
import { createOrderEventsConsumer } from './factories/order-events-consumer.js';

/** Lambda entry point, configured from the environment. */
export const handler = createOrderEventsConsumer({
  journal: journalFromEnvironment(createDocumentClient()),
  stockTable: requiredEnv(HandlerEnv.stockTable),
  consumer: process.env[HandlerEnv.consumer] || ORDER_EVENTS_CONSUMER,
});

import { DynamoDBJournal, IdemkitEnvironment } from '../index.js';
import { createDocumentClient, requiredEnv } from './wiring.js';
import { HandlerEnv, PAYMENTS_READ_MODEL_CONSUMER } from './service-config.js';
import { createPaymentsReadModel } from './factories/payments-read-model.js';

/** Lambda entry point, configured from the environment. */
export const handler = createPaymentsReadModel({
  journal: new DynamoDBJournal({ client: createDocumentClient() }), // the table named by IDEMKIT_TABLE_NAME
  paymentTotalsTable: requiredEnv(HandlerEnv.paymentTotalsTable),
  consumer: process.env[IdemkitEnvironment.consumer] || PAYMENTS_READ_MODEL_CONSUMER,
});

import { DynamoDBJournal } from '../index.js';
import { createDocumentClient, requiredEnv } from './wiring.js';
import { HandlerEnv } from './service-config.js';
import { createPaymentHandler } from './factories/create-payment.js';

const client = createDocumentClient();

/** Lambda entry point, configured from the environment. */
export const handler = createPaymentHandler({
  journal: new DynamoDBJournal({ client }), // the table named by IDEMKIT_TABLE_NAME
  paymentsTable: requiredEnv(HandlerEnv.paymentsTable),
});

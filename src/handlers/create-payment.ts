import { createDocumentClient, journalFromEnvironment } from './clients.js';
import { requiredEnv } from './environment.js';
import { HandlerEnv } from './service-config.js';
import { createPaymentHandler } from './factories/create-payment.js';

const client = createDocumentClient();

/** Lambda entry point, configured from the environment. */
export const handler = createPaymentHandler({
  journal: journalFromEnvironment(client),
  paymentsTable: requiredEnv(HandlerEnv.paymentsTable),
});

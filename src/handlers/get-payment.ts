import { createDocumentClient } from './clients.js';
import { requiredEnv } from './environment.js';
import { HandlerEnv } from './service-config.js';
import { getPaymentHandler } from './factories/get-payment.js';

/** Lambda entry point, configured from the environment. */
export const handler = getPaymentHandler({
  docClient: createDocumentClient(),
  paymentsTable: requiredEnv(HandlerEnv.paymentsTable),
});

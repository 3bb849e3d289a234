import { createDocumentClient, requiredEnv } from './wiring.js';
import { HandlerEnv } from './service-config.js';
import { getPaymentHandler } from './factories/get-payment.js';

/** Lambda entry point, configured from the environment. */
export const handler = getPaymentHandler({
  docClient: createDocumentClient(),
  paymentsTable: requiredEnv(HandlerEnv.paymentsTable),
});

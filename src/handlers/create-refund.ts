import { createDocumentClient, journalFromEnvironment } from './clients.js';
import { requiredEnv } from './environment.js';
import { HandlerEnv } from './service-config.js';
import { createRefundHandler } from './factories/create-refund.js';

const client = createDocumentClient();

/** Lambda entry point, configured from the environment. */
export const handler = createRefundHandler({
  journal: journalFromEnvironment(client),
  docClient: client,
  paymentsTable: requiredEnv(HandlerEnv.paymentsTable),
});

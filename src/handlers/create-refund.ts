import { DynamoDBJournal } from '../index.js';
import { createDocumentClient, requiredEnv } from './wiring.js';
import { HandlerEnv } from './service-config.js';
import { createRefundHandler } from './factories/create-refund.js';

const client = createDocumentClient();

/** Lambda entry point, configured from the environment. */
export const handler = createRefundHandler({
  journal: new DynamoDBJournal({ client }), // the table named by IDEMKIT_TABLE_NAME
  docClient: client,
  paymentsTable: requiredEnv(HandlerEnv.paymentsTable),
});

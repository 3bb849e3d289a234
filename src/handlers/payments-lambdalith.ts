import { DynamoDBJournal } from '../index.js';
import { createDocumentClient, requiredEnv } from './wiring.js';
import { HandlerEnv } from './service-config.js';
import { paymentsLambdalithHandler } from './factories/payments-lambdalith.js';

const client = createDocumentClient();

/** Lambda entry point of the Lambdalith (every payments route in one Express app), configured from the environment. */
export const handler = paymentsLambdalithHandler({
  journal: new DynamoDBJournal({ client }), // the table named by IDEMKIT_TABLE_NAME
  docClient: client,
  paymentsTable: requiredEnv(HandlerEnv.paymentsTable),
});

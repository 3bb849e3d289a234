import { DynamoDBJournal } from '../index.js';
import { createDocumentClient, requiredEnv } from './wiring.js';
import { HandlerEnv } from './service-config.js';
import { startFulfilmentHandler } from './factories/start-fulfilment.js';

/** Lambda entry point of the durable workflow's HTTP front door, configured from the environment. */
export const handler = startFulfilmentHandler({
  journal: new DynamoDBJournal({ client: createDocumentClient() }), // the table named by IDEMKIT_TABLE_NAME
  functionName: requiredEnv(HandlerEnv.fulfilmentFunction),
});

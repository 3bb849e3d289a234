import { createOutboxDispatcherHandler } from './factories/outbox-dispatcher.js';

/** Lambda entry point, configured from the environment. */
export const handler = createOutboxDispatcherHandler();

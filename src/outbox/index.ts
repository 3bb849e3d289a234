export { outboxDispatcher } from './outbox-dispatcher.js';
export type { AwsSdkClient } from './publisher.js';
export {
  DEFAULT_EVENT_SOURCE,
  DEFAULT_OUTBOX_DISPATCHER_OPTIONS,
  type EnvironmentDispatchOptions,
  type EventBusDispatchOptions,
  type OutboxDispatcherOptions,
  type QueueDispatchOptions,
} from './dispatcher-options.js';
export { OUTBOX_EVENT_ID_ATTRIBUTE, type OutboxMessage } from './outbox-message.js';
export { DEFAULT_PROJECTION_GUARD_OPTIONS, ProjectionGuard, type ProjectionGuardOptions } from './projection-guard.js';

/**
 * `idemkit/sqs`: what a guarded queue consumer needs and nothing more — `sqsConsumer`, the
 * message id readers, the journals, `idempotencyOf` and the errors. No HTTP middleware, no
 * outbox dispatcher, no caller-side client.
 *
 * @example
 * import { DynamoDBJournal, fromMessageAttribute, sqsConsumer } from 'idemkit/sqs';
 * export const handler = sqsConsumer(reserveStock, { journal: new DynamoDBJournal(), messageId: fromMessageAttribute('eventId') });
 *
 * @packageDocumentation
 */
export {
  IdempotencyError,
  KeyMissingError,
  KeyInvalidError,
  PayloadMismatchError,
  InProgressError,
  NeedsReviewError,
  LeaseLostError,
  UniqueConflictError,
  WriteConflictError,
  JournalUnavailableError,
  JournalError,
  NotResolvableError,
  RequestInvalidError,
  InvalidOptionsError,
  ResponseTooLargeError,
  ERROR_CODES,
  IdemkitEnvironment,
  type ErrorCode,
  type ConflictingRecord,
  type IdemkitEnvironmentName,
} from '../core/index.js';
export {
  DynamoDBJournal,
  MemoryJournal,
  type DynamoDBJournalOptions,
  type MemoryJournalOptions,
  type Journal,
  type JournalRecord,
  type TransactItem,
  type Evidence,
} from '../journal/index.js';
export { idempotencyOf, type IdempotencyScope, type RecoveryDecision, type GuardOptions } from '../engine/index.js';
export { OUTBOX_EVENT_ID_ATTRIBUTE } from '../outbox/index.js';
export * from '../sqs/index.js';

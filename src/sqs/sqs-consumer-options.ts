import type { SQSRecord } from 'aws-lambda';
import { resolveConsumerSettings, type ConsumerSettings } from '../consumer/index.js';
import { InvalidOptionsError, readNumber, KeyMissingError, RequestInvalidError } from '../core/index.js';
import type { GuardOptions } from '../engine/index.js';

/** Options of `sqsConsumer`. */
export interface SqsConsumerOptions extends GuardOptions {
  /**
   * Name of this consumer: the scope of its inbox records (`msg#<consumer>#<messageId>`) and
   * the `Consumer` metric dimension. Two consumers of one message keep separate records.
   * @default process.env.IDEMKIT_CONSUMER (set by the `GuardedQueueConsumer` construct)
   * @example 'order-events'
   */
  readonly consumer?: string;
  /**
   * The id that makes two deliveries one message. Use an id the producer carried (see
   * `fromMessageAttribute`, `fromBodyField`) when the same logical message can be sent
   * twice under two SQS message ids, as an outbox dispatch retry does. A throw or an empty
   * id reports the record as failed.
   * @default the SQS message id (`record.messageId`)
   * @example fromMessageAttribute('eventId')
   */
  readonly messageId?: (record: SQSRecord) => string;
  /**
   * What the fingerprint covers; a redelivery whose fingerprint differs is refused
   * (`PayloadMismatchError`, reported as failed).
   * @default the SHA-256 of the raw body
   */
  readonly fingerprint?: (record: SQSRecord) => unknown;
  /**
   * Records of a standard queue handled at once. FIFO batches run one record at a time per
   * message group (groups in parallel up to this bound).
   * @default 1
   */
  readonly concurrency?: number;
}

const FACTORY = 'sqsConsumer';

/** Defaults of {@link SqsConsumerOptions} besides the shared guard defaults. */
export const DEFAULT_SQS_CONSUMER_OPTIONS = Object.freeze({
  messageId: (record: SQSRecord): string => record.messageId,
  concurrency: 1,
});

/** Validates `sqsConsumer` options (unknown names throw, naming the option) and resolves defaults. */
export function resolveConsumerOptions(options: SqsConsumerOptions): ConsumerSettings<SQSRecord> {
  const settings = resolveConsumerSettings(
    { name: FACTORY, ownOptions: ['concurrency'], defaultMessageId: DEFAULT_SQS_CONSUMER_OPTIONS.messageId },
    options,
  );
  return {
    ...settings,
    concurrency: readNumber(FACTORY, 'concurrency', options.concurrency, DEFAULT_SQS_CONSUMER_OPTIONS.concurrency, {
      min: 1,
      max: 1_000,
      integer: true,
    }),
  };
}

/**
 * Reads the message id from a String message attribute, such as the `eventId` the outbox
 * dispatcher sets: two dispatches of one event then count as one message.
 *
 * @throws KeyMissingError when the attribute is absent or empty (the record is reported as failed)
 * @example sqsConsumer(reserveStock, { journal, consumer: 'stock', messageId: fromMessageAttribute('eventId') })
 */
export function fromMessageAttribute(name: string): (record: SQSRecord) => string {
  if (typeof name !== 'string' || name.length === 0)
    throw new InvalidOptionsError('fromMessageAttribute() needs an attribute name');
  return function messageIdFromAttribute(record: SQSRecord): string {
    const value = record.messageAttributes?.[name]?.stringValue;
    if (typeof value !== 'string' || value.length === 0)
      throw new KeyMissingError(`The message has no '${name}' message attribute`);
    return value;
  };
}

/**
 * Reads the message id from a field of the JSON body; a dotted path reaches into nested
 * objects. Numbers are accepted and turned into strings.
 *
 * @throws RequestInvalidError when the body is not JSON; KeyMissingError when the field is
 *   absent, empty or not a string or number (either way the record is reported as failed)
 * @example sqsConsumer(handle, { journal, consumer: 'orders', messageId: fromBodyField('eventId') })
 */
export function fromBodyField(path: string): (record: SQSRecord) => string {
  if (typeof path !== 'string' || path.length === 0)
    throw new InvalidOptionsError('fromBodyField() needs a field path');
  const steps = path.split('.');
  return function messageIdFromBody(record: SQSRecord): string {
    let value: unknown;
    try {
      value = JSON.parse(record.body);
    } catch (error) {
      throw new RequestInvalidError(`The message body is not JSON: ${(error as Error).message}`, { cause: error });
    }
    for (const step of steps)
      value = value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[step] : undefined;
    if (typeof value === 'number' && Number.isFinite(value)) return String(value);
    if (typeof value !== 'string' || value.length === 0)
      throw new KeyMissingError(`The message body has no '${path}' string field`);
    return value;
  };
}

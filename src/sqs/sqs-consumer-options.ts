import type { SQSRecord } from 'aws-lambda';
import { checkFunction, checkNumber, GUARD_OPTION_NAMES, rejectUnknownOptions, resolveGuardOptions, type EngineSettings, type GuardOptions } from '../engine/index.js';
import { InvalidOptionsError } from '../errors/index.js';
import { defaultLogger, type LogSink } from '../telemetry/index.js';

/** Options of `sqsConsumer`. */
export interface SqsConsumerOptions extends GuardOptions {
  /**
   * Name of this consumer: the scope of its inbox records (`msg#<consumer>#<messageId>`) and
   * the `Consumer` metric dimension. Two consumers of one message keep separate records.
   * @example 'order-events'
   */
  readonly consumer: string;
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

/** Everything a batch needs, resolved once per factory call. */
export interface ConsumerSettings {
  readonly engineSettings: EngineSettings;
  readonly consumer: string;
  readonly messageId: (record: SQSRecord) => string;
  readonly fingerprint?: (record: SQSRecord) => unknown;
  readonly concurrency: number;
  readonly logger: LogSink;
}

const OPTION_NAMES = [...GUARD_OPTION_NAMES, 'consumer', 'messageId', 'fingerprint', 'concurrency'];
const FACTORY = 'sqsConsumer';

/** Validates `sqsConsumer` options (unknown names throw, naming the option) and resolves defaults. */
export function resolveConsumerOptions(options: SqsConsumerOptions): ConsumerSettings {
  rejectUnknownOptions(FACTORY, options, OPTION_NAMES);
  const engineSettings = resolveGuardOptions(FACTORY, options);
  if (typeof options.consumer !== 'string' || options.consumer.length === 0) {
    throw new InvalidOptionsError(`${FACTORY}: 'consumer' must be a non-empty string`);
  }
  checkFunction(FACTORY, 'messageId', options.messageId);
  checkFunction(FACTORY, 'fingerprint', options.fingerprint);
  checkNumber(FACTORY, 'concurrency', options.concurrency, 1, 1_000);
  if (options.concurrency !== undefined && !Number.isInteger(options.concurrency)) {
    throw new InvalidOptionsError(`${FACTORY}: 'concurrency' must be an integer`);
  }
  return {
    engineSettings,
    consumer: options.consumer,
    messageId: options.messageId ?? sqsMessageId,
    fingerprint: options.fingerprint,
    concurrency: options.concurrency ?? 1,
    logger: options.logger ?? defaultLogger(),
  };
}

function sqsMessageId(record: SQSRecord): string {
  return record.messageId;
}

import {
  constructGivenName,
  IdemkitEnvironment,
  InvalidOptionsError,
  readFunction,
  readString,
} from '../core/index.js';
import { resolveGuardOptions, type EngineSettings, type GuardOptions } from '../engine/index.js';
import { defaultLogger, type LogSink } from '../telemetry/index.js';

/** The options every guarded consumer reads besides the shared guard options, for records seen as `M`. */
export interface ConsumerOptions<M> extends GuardOptions {
  /** The consumer name: scope of its inbox records and the `Consumer` metric dimension. */
  readonly consumer?: string;
  /** The id that makes two deliveries one message. */
  readonly messageId?: (record: M) => string;
  /** What the fingerprint covers. */
  readonly fingerprint?: (record: M) => unknown;
}

/** Everything a batch needs, resolved once per factory call. */
export interface ConsumerSettings<M> {
  readonly engineSettings: EngineSettings;
  readonly consumer: string;
  readonly messageId: (record: M) => string;
  readonly fingerprint?: (record: M) => unknown;
  /** Lanes run at once (SQS only; an ordered stream has one lane per batch). */
  readonly concurrency: number;
  readonly logger: LogSink;
}

/** What a consumer factory's resolution needs to know of it. */
export interface ConsumerFactory<M> {
  /** The factory's name, for error messages: `'sqsConsumer'`. */
  readonly name: string;
  /** The factory's own option names besides `consumer`, `messageId` and `fingerprint`. */
  readonly ownOptions: readonly string[];
  /** The message id when the option is absent. */
  readonly defaultMessageId: (record: M) => string;
}

/**
 * Validates a consumer factory's options (unknown names throw, naming the option) and resolves
 * what every consumer shares: the engine settings, the consumer name (the option, else the
 * `IDEMKIT_CONSUMER` a construct set), the message id and fingerprint readers, the logger.
 * `concurrency` is 1: a factory that offers the option replaces it.
 *
 * @throws InvalidOptionsError naming the factory and the option
 * @example const settings = resolveConsumerSettings({ name: 'kinesisConsumer', ownOptions: [], defaultMessageId }, options);
 */
export function resolveConsumerSettings<M>(
  factory: ConsumerFactory<M>,
  options: ConsumerOptions<M>,
): ConsumerSettings<M> {
  const engineSettings = resolveGuardOptions(factory.name, options, [
    'consumer',
    'messageId',
    'fingerprint',
    ...factory.ownOptions,
  ]);
  return {
    engineSettings,
    consumer: consumerOf(factory.name, options),
    messageId: readFunction(factory.name, 'messageId', options.messageId, factory.defaultMessageId),
    fingerprint: readFunction(factory.name, 'fingerprint', options.fingerprint, undefined),
    concurrency: 1,
    logger: options.logger ?? defaultLogger(),
  };
}

/** The `consumer` option, or the name a construct set in the environment. */
function consumerOf<M>(factory: string, options: ConsumerOptions<M>): string {
  const consumer = readString(factory, 'consumer', options.consumer, constructGivenName('consumer'));
  if (consumer === undefined) {
    throw new InvalidOptionsError(`${factory}: option 'consumer' is required (or set ${IdemkitEnvironment.consumer})`);
  }
  return consumer;
}

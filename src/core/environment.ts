/**
 * Environment variables the runtime reads when the matching option is absent, and that the
 * CDK constructs set on the functions they create.
 *
 * No imports and no side effects: `lib/` imports this module, so what a construct sets is what
 * the runtime reads, by construction.
 *
 * @example
 * const tableName = process.env[IdemkitEnvironment.tableName]; // 'IDEMKIT_TABLE_NAME'
 */
export const IdemkitEnvironment = Object.freeze({
  /** Journal table of a `DynamoDBJournal` created without `tableName`. */
  tableName: 'IDEMKIT_TABLE_NAME',
  /** `consumer` of an `sqsConsumer`, `kinesisConsumer` or `dynamodbStreamConsumer` created without one. */
  consumer: 'IDEMKIT_CONSUMER',
  /** `operation` of an `httpIdempotency` or `makeIdempotent` created without one. */
  operation: 'IDEMKIT_OPERATION',
  /** Queue an `outboxDispatcher` created without `queueUrl` or `eventBusName` sends to. */
  outboxQueueUrl: 'IDEMKIT_OUTBOX_QUEUE_URL',
  /** Event bus an `outboxDispatcher` created without `queueUrl` or `eventBusName` puts events on. */
  outboxEventBusName: 'IDEMKIT_OUTBOX_EVENT_BUS_NAME',
  /** Service name of the default logger and metrics (Powertools' own variable). */
  serviceName: 'POWERTOOLS_SERVICE_NAME',
  /** CloudWatch namespace of the default metrics (Powertools' own variable). */
  metricsNamespace: 'POWERTOOLS_METRICS_NAMESPACE',
} as const);

/** Name of one of the {@link IdemkitEnvironment} variables. */
export type IdemkitEnvironmentName = (typeof IdemkitEnvironment)[keyof typeof IdemkitEnvironment];

/**
 * The name a construct gave the guarded unit of this function (`IDEMKIT_CONSUMER`,
 * `IDEMKIT_OPERATION`), used when the guard's own option is absent: the runtime then emits the
 * metric dimension the construct's alarms query. Unset or empty is `undefined`.
 *
 * @example
 * const operation = options.operation ?? constructGivenName('operation'); // IDEMKIT_OPERATION
 */
export function constructGivenName(name: 'consumer' | 'operation'): string | undefined {
  return process.env[IdemkitEnvironment[name]] || undefined;
}

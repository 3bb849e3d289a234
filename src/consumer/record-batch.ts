import type { Context } from 'aws-lambda';
import { IdempotencyError } from '../core/index.js';
import { fingerprintOf, IdempotencyEngine } from '../engine/index.js';
import { MetricDimension, Telemetry, type AttemptStatus, type TelemetryOptions } from '../telemetry/index.js';
import type { ConsumerSettings } from './consumer-options.js';

/**
 * What makes one event source's batch different from another's: how a record is read (decoded
 * once, for the message id, the fingerprint and the handler alike), which identifier Lambda
 * matches a failure by, which records must keep their order, and what happens to the rest of
 * an ordered lane after a failure. Each source (SQS, Kinesis, DynamoDB Streams) is one such
 * description over the one batch loop, {@link recordBatchConsumer}.
 */
export interface RecordSource<R, M> {
  /** Names the records in log lines: `'sqs record'`, `'kinesis record'`. */
  readonly noun: string;
  /** Log field of the record's identifier: `'message_id'`, `'sequence_number'`. */
  readonly identifierField: string;
  /** The identifier of a batch item failure: the SQS message id, a stream record's sequence number. */
  itemIdentifier(record: R): string;
  /** The record as the handler, `messageId` and `fingerprint` see it. May throw: the record is then unreadable. */
  read(record: R): M;
  /** The fingerprint when the `fingerprint` option is absent: a hex SHA-256 of what the record carries. */
  defaultFingerprint(message: M): string;
  /** What a lane is, in log lines: `'message group'`, `'shard'`. */
  readonly laneNoun: string;
  /** Splits the batch into lanes whose records run one after another, in batch order. */
  lanesOf(records: readonly R[]): R[][];
  /**
   * What a lane does after one of its records failed: `report` reports the rest unprocessed
   * (a FIFO message group: they come back with the failed one); `stop` leaves them out of the
   * answer (a stream shard: Lambda resumes at the one failure reported, so they are sent again).
   */
  afterFailure(lane: readonly R[]): 'report' | 'stop';
  /** Log fields that say which lane stopped (a message group, a shard). */
  laneFields(lane: readonly R[]): Record<string, unknown>;
}

/** A handler of one read record, run inside a guarded attempt. */
export type ReadRecordHandler<M> = (message: M, context: Context) => Promise<unknown>;

/** The partial batch response every source answers with. */
export interface BatchItemFailures {
  batchItemFailures: Array<{ itemIdentifier: string }>;
}

/**
 * The batch loop every guarded consumer shares: each record runs through the engine under
 * `msg#<consumer>#<messageId>`, lanes run up to `concurrency` at once, and the answer lists the
 * failed records by identifier, never by position. A record that cannot be handled is reported
 * with its reason logged, so one bad record never fails the whole batch.
 *
 * @example
 * const consume = recordBatchConsumer(sqsSource, settings, recordHandler, options);
 * return consume(event.Records, context);
 */
export function recordBatchConsumer<R, M>(
  source: RecordSource<R, M>,
  settings: ConsumerSettings<M>,
  recordHandler: ReadRecordHandler<M>,
  telemetryOptions: TelemetryOptions,
): (records: readonly R[], context: Context) => Promise<BatchItemFailures> {
  const telemetry = new Telemetry(MetricDimension.consumer, { ...telemetryOptions, logger: settings.logger });
  // A record's outcome is that it was handled: nothing of the handler's result is kept.
  const engine = new IdempotencyEngine(
    { ...settings.engineSettings, outcomeOf: () => ({ store: true, response: undefined }) },
    telemetry,
  );

  async function consumeRecord(record: R, context: Context): Promise<boolean> {
    let message: M | undefined;
    // Read inside the key check: an unreadable record is an invalid key, logged and counted like one.
    const read = (): M => (message ??= source.read(record));
    try {
      await engine.run(
        {
          kind: 'message',
          operation: settings.consumer,
          key: () => settings.messageId(read()),
          keyLabel: 'The message id',
          fingerprint: () =>
            settings.fingerprint ? fingerprintOf(settings.fingerprint(read())) : source.defaultFingerprint(read()),
        },
        context,
        {
          invoke: (scoped) => recordHandler(read(), scoped as Context),
          onFailed: (error, status) => logFailure(source, settings, record, error, status),
        },
      );
      return true;
    } catch {
      return false;
    }
  }

  return async function consumeRecords(records, context) {
    const failed = new Set<R>();
    await forEachBounded(source.lanesOf(records), settings.concurrency, async function consumeLane(lane) {
      let laneFailed = false;
      let unprocessed = 0;
      for (const record of lane) {
        if (laneFailed) {
          if (source.afterFailure(lane) === 'report') failed.add(record);
          unprocessed++;
          continue;
        }
        if (await consumeRecord(record, context)) continue;
        failed.add(record);
        laneFailed = true;
      }
      if (unprocessed > 0) {
        const verb = source.afterFailure(lane) === 'report' ? 'reported unprocessed' : 'left for the redelivery';
        settings.logger.info(`${source.noun}s after a failure in their ${source.laneNoun} ${verb}`, {
          consumer: settings.consumer,
          ...source.laneFields(lane),
          unprocessed,
        });
      }
    });
    return {
      batchItemFailures: records
        .filter((record) => failed.has(record))
        .map((record) => ({ itemIdentifier: source.itemIdentifier(record) })),
    };
  };
}

/** A collision with a running attempt is routine; anything else needs a look. */
function logFailure<R, M>(
  source: RecordSource<R, M>,
  settings: ConsumerSettings<M>,
  record: R,
  error: unknown,
  status: AttemptStatus | undefined,
): void {
  const fields = {
    consumer: settings.consumer,
    [source.identifierField]: source.itemIdentifier(record),
    idempotency_status: status,
    reason: error instanceof Error ? error.message : String(error),
    error_code: error instanceof IdempotencyError ? error.code : undefined,
  };
  const message = `${source.noun} reported as failed`;
  if (status === 'in_progress') settings.logger.info(message, fields);
  else settings.logger.error(message, fields);
}

/** Runs `work` over `items` with at most `concurrency` in flight, starting them in order. */
async function forEachBounded<T>(
  items: readonly T[],
  concurrency: number,
  work: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) await work(items[next++]);
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
}

import type { Context } from 'aws-lambda';
import {
  recordBatchConsumer,
  type BatchItemFailures,
  type ConsumerSettings,
  type ReadRecordHandler,
  type RecordSource,
} from '../consumer/index.js';
import { InvalidOptionsError, RequestInvalidError } from '../core/index.js';
import type { TelemetryOptions } from '../telemetry/index.js';

/** What an ordered stream source adds to the shared batch loop: how its records are named, identified and read. */
export interface StreamRecordReader<R, M> {
  /** The factory, for error messages: `'kinesisConsumer'`. */
  readonly factory: string;
  /** What the event is, for error messages: `'a Kinesis event'`. */
  readonly eventNoun: string;
  /** Names the records in log lines: `'kinesis record'`. */
  readonly noun: string;
  /** The record's sequence number in its shard, or undefined when the record has none. */
  sequenceNumberOf(record: R): string | undefined;
  /** The shard (or stream) the record came from, for log lines. */
  shardOf(record: R): string | undefined;
  /** The record as the handler sees it, decoded once. */
  read(record: R): M;
  /** The fingerprint when the `fingerprint` option is absent. */
  defaultFingerprint(message: M): string;
}

/**
 * The batch loop for an ordered stream (Kinesis, DynamoDB Streams): a batch comes from one
 * shard and runs as one lane, in order. The first record that fails, is still in progress
 * elsewhere or needs review stops the batch: it is the one batch item failure reported, the
 * records after it are not run, and Lambda resumes at that sequence number, where the guard
 * skips whatever already completed. Bisecting is never needed: the failure is named exactly.
 *
 * @throws InvalidOptionsError when `recordHandler` is not a function
 * @example
 * const consume = orderedStreamConsumer(kinesisReader, settings, handler, options);
 * export const handler = (event, context) => consume(event, context);
 */
export function orderedStreamConsumer<R, M>(
  reader: StreamRecordReader<R, M>,
  settings: ConsumerSettings<M>,
  recordHandler: ReadRecordHandler<M>,
  telemetryOptions: TelemetryOptions,
): (event: { Records: R[] }, context?: Context) => Promise<BatchItemFailures> {
  if (typeof recordHandler !== 'function')
    throw new InvalidOptionsError(`${reader.factory}: the first argument must be a function`);
  const source: RecordSource<R, M> = {
    noun: reader.noun,
    identifierField: 'sequence_number',
    laneNoun: 'shard',
    itemIdentifier: (record) => reader.sequenceNumberOf(record) ?? '',
    read: (record) => reader.read(record),
    defaultFingerprint: (message) => reader.defaultFingerprint(message),
    lanesOf: (records) => (records.length === 0 ? [] : [[...records]]),
    afterFailure: () => 'stop',
    laneFields: (lane) => ({ shard_id: reader.shardOf(lane[0]) }),
  };
  const consumeRecords = recordBatchConsumer(source, settings, recordHandler, telemetryOptions);

  return async function consumeStreamBatch(event, context = {} as Context) {
    const records = event?.Records;
    if (!Array.isArray(records))
      throw new RequestInvalidError(`${reader.factory}: the event is not ${reader.eventNoun} (no Records array)`);
    // Lambda reads a failure without a sequence number as the whole batch failing: refuse such a batch up front instead.
    const unnumbered = records.findIndex((record) => !reader.sequenceNumberOf(record));
    if (unnumbered >= 0)
      throw new RequestInvalidError(`${reader.factory}: record ${unnumbered} of the batch has no sequence number`);
    return consumeRecords(records, context);
  };
}

import { DescribeTableCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  DescribeStreamCommand,
  GetRecordsCommand,
  GetShardIteratorCommand,
  type _Record,
  type AttributeValue,
  type DynamoDBStreamsClient,
  type Shard,
} from '@aws-sdk/client-dynamodb-streams';
import type { DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';

/** Options of {@link StreamPoller}. */
export interface StreamPollerOptions {
  /** The table whose stream is read (its `LatestStreamArn`). */
  readonly tableName: string;
  /** Client of the DynamoDB endpoint holding the table. */
  readonly dynamodb: DynamoDBClient;
  /** Client of the same endpoint's Streams API. */
  readonly streams: DynamoDBStreamsClient;
  /**
   * Most records handed over per read, like an event source mapping's `BatchSize`.
   * @default 100
   */
  readonly batchSize?: number;
  /**
   * `awsRegion` written on each record.
   * @default 'us-east-1'
   */
  readonly region?: string;
}

type LambdaAttribute = NonNullable<DynamoDBRecord['dynamodb']>['NewImage'];

const EMPTY_PAGES_BEFORE_GIVING_UP = 3;

/**
 * Reads a table's DynamoDB stream the way a Lambda event source mapping does, for local
 * runs: records arrive as a `DynamoDBStreamEvent`, a handler's `batchItemFailures` keep the
 * checkpoint before the lowest failed sequence number, and a thrown handler moves nothing.
 *
 * @example
 * const poller = new StreamPoller({ tableName, dynamodb, streams });
 * await poller.deliver(outboxDispatcher({ queueUrl }));
 */
export class StreamPoller {
  private readonly batchSize: number;
  private readonly region: string;
  private streamArn?: string;
  /** Last sequence number handled per shard: reads resume after it. */
  private readonly checkpoints = new Map<string, string>();
  /** Shard of every record handed out, to acknowledge it later. */
  private readonly shardOf = new Map<string, string>();

  constructor(private readonly options: StreamPollerOptions) {
    this.batchSize = options.batchSize ?? 100;
    this.region = options.region ?? 'us-east-1';
  }

  /**
   * The next records after the checkpoint of the first shard that has any (one shard per
   * event, as Lambda does); an empty event when the stream holds nothing new. Reading does
   * not move the checkpoint: {@link acknowledge} does.
   */
  async read(): Promise<DynamoDBStreamEvent> {
    const streamArn = await this.latestStreamArn();
    const described = await this.options.streams.send(new DescribeStreamCommand({ StreamArn: streamArn }));
    for (const shard of described.StreamDescription?.Shards ?? []) {
      const records = await this.readShard(streamArn, shard);
      if (records.length > 0)
        return { Records: records.map((record) => this.toLambdaRecord(record, streamArn, shard.ShardId!)) };
    }
    return { Records: [] };
  }

  /** Moves each shard's checkpoint past the handled records, stopping before the lowest reported failure. */
  acknowledge(event: DynamoDBStreamEvent, response?: DynamoDBBatchResponse | void): void {
    const failed = new Set((response?.batchItemFailures ?? []).map((failure) => failure.itemIdentifier));
    const stoppedShards = new Set<string>();
    for (const record of event.Records) {
      const sequenceNumber = record.dynamodb?.SequenceNumber;
      const shardId = sequenceNumber === undefined ? undefined : this.shardOf.get(sequenceNumber);
      if (!sequenceNumber || !shardId || stoppedShards.has(shardId)) continue;
      if (failed.has(sequenceNumber)) stoppedShards.add(shardId);
      else this.checkpoints.set(shardId, sequenceNumber);
    }
  }

  /**
   * Reads one event, invokes `handler` with it and acknowledges the answer; a thrown handler
   * acknowledges nothing (the next delivery starts from the same records) and rethrows.
   */
  async deliver(
    handler: (event: DynamoDBStreamEvent) => Promise<DynamoDBBatchResponse | void>,
  ): Promise<{ event: DynamoDBStreamEvent; response?: DynamoDBBatchResponse }> {
    const event = await this.read();
    if (event.Records.length === 0) return { event };
    const response = (await handler(event)) ?? undefined;
    this.acknowledge(event, response);
    return { event, response };
  }

  private async latestStreamArn(): Promise<string> {
    if (this.streamArn) return this.streamArn;
    const table = await this.options.dynamodb.send(new DescribeTableCommand({ TableName: this.options.tableName }));
    const arn = table.Table?.LatestStreamArn;
    if (!arn) throw new Error(`Table ${this.options.tableName} has no stream enabled`);
    this.streamArn = arn;
    return arn;
  }

  private async readShard(streamArn: string, shard: Shard): Promise<_Record[]> {
    const shardId = shard.ShardId!;
    const checkpoint = this.checkpoints.get(shardId);
    const start = await this.options.streams.send(
      new GetShardIteratorCommand({
        StreamArn: streamArn,
        ShardId: shardId,
        ...(checkpoint
          ? { ShardIteratorType: 'AFTER_SEQUENCE_NUMBER', SequenceNumber: checkpoint }
          : { ShardIteratorType: 'TRIM_HORIZON' }),
      }),
    );
    let iterator = start.ShardIterator;
    // A page can come back empty while later records exist; a few pages settle it.
    for (let page = 0; iterator && page < EMPTY_PAGES_BEFORE_GIVING_UP; page++) {
      const out = await this.options.streams.send(
        new GetRecordsCommand({ ShardIterator: iterator, Limit: this.batchSize }),
      );
      const records = out.Records ?? [];
      if (records.length > 0) return records;
      iterator = out.NextShardIterator;
    }
    return [];
  }

  private toLambdaRecord(record: _Record, streamArn: string, shardId: string): DynamoDBRecord {
    const stream = record.dynamodb ?? {};
    this.shardOf.set(stream.SequenceNumber!, shardId);
    return {
      eventID: record.eventID,
      eventName: record.eventName,
      eventVersion: record.eventVersion ?? '1.1',
      eventSource: 'aws:dynamodb',
      awsRegion: this.region,
      eventSourceARN: streamArn,
      dynamodb: {
        ApproximateCreationDateTime: stream.ApproximateCreationDateTime
          ? Math.floor(stream.ApproximateCreationDateTime.getTime() / 1000)
          : undefined,
        Keys: toLambdaImage(stream.Keys),
        NewImage: toLambdaImage(stream.NewImage),
        OldImage: toLambdaImage(stream.OldImage),
        SequenceNumber: stream.SequenceNumber,
        SizeBytes: stream.SizeBytes,
        StreamViewType: stream.StreamViewType,
      },
    };
  }
}

/** The SDK hands binary values over as bytes; Lambda events carry them base64-encoded. */
function toLambdaImage(image: Record<string, AttributeValue> | undefined): LambdaAttribute {
  if (!image) return undefined;
  return Object.fromEntries(
    Object.entries(image).map(([name, value]) => [name, toLambdaValue(value)]),
  ) as LambdaAttribute;
}

function toLambdaValue(value: AttributeValue): unknown {
  if (value.B !== undefined) return { B: Buffer.from(value.B).toString('base64') };
  if (value.BS !== undefined) return { BS: value.BS.map((bytes) => Buffer.from(bytes).toString('base64')) };
  if (value.M !== undefined) return { M: toLambdaImage(value.M) };
  if (value.L !== undefined) return { L: value.L.map(toLambdaValue) };
  return value;
}

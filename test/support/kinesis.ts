import {
  CreateStreamCommand,
  DescribeStreamCommand,
  GetRecordsCommand,
  GetShardIteratorCommand,
  KinesisClient,
  PutRecordCommand,
  type _Record,
} from '@aws-sdk/client-kinesis';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import type { KinesisStreamBatchResponse, KinesisStreamEvent, KinesisStreamRecord } from 'aws-lambda';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';

const REGION = 'us-east-1';
const ACCOUNT = '123456789012';

/**
 * A Kinesis emulator (kinesalite, in memory) listening on 127.0.0.1 in this process; `stop`
 * closes it. Streams become ACTIVE at once.
 */
export async function startKinesis(): Promise<{ client: KinesisClient; stop: () => Promise<void> }> {
  // CommonJS package without types: loaded the way Node loads it.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const kinesalite = require('kinesalite') as (options: Record<string, number>) => Server;
  const server = kinesalite({ createStreamMs: 0, deleteStreamMs: 0, updateStreamMs: 0 });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const client = new KinesisClient({
    endpoint: `http://127.0.0.1:${port}`,
    region: REGION,
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    // The SDK's default handler speaks HTTP/2 to Kinesis; the emulator speaks HTTP/1.1.
    requestHandler: new NodeHttpHandler(),
  });
  return {
    client,
    stop: async () => {
      client.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Creates a stream with a unique name and `shardCount` shards, and returns its name. */
export async function createStream(client: KinesisClient, shardCount = 1): Promise<string> {
  const streamName = `orders-${randomUUID().slice(0, 8)}`;
  await client.send(new CreateStreamCommand({ StreamName: streamName, ShardCount: shardCount }));
  for (let tries = 0; tries < 50; tries++) {
    const out = await client.send(new DescribeStreamCommand({ StreamName: streamName }));
    if (out.StreamDescription?.StreamStatus === 'ACTIVE') return streamName;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`stream ${streamName} never became ACTIVE`);
}

/** Puts one JSON record, as a producer does (a retry of the same payload is another call). */
export async function putJson(
  client: KinesisClient,
  streamName: string,
  value: unknown,
  partitionKey = 'p',
): Promise<{ shardId: string; sequenceNumber: string }> {
  const out = await client.send(
    new PutRecordCommand({
      StreamName: streamName,
      PartitionKey: partitionKey,
      Data: Buffer.from(JSON.stringify(value)),
    }),
  );
  return { shardId: out.ShardId!, sequenceNumber: out.SequenceNumber! };
}

/**
 * Reads one shard of a Kinesis stream the way a Lambda event source mapping does: records
 * arrive as a `KinesisStreamEvent` built from what the emulator returned, a handler's
 * `batchItemFailures` keep the checkpoint before the failed sequence number, and a thrown
 * handler moves nothing.
 */
export class KinesisShardPoller {
  private checkpoint?: string;

  constructor(
    private readonly client: KinesisClient,
    private readonly streamName: string,
    private readonly shardId = 'shardId-000000000000',
    private readonly batchSize = 100,
  ) {}

  /** The next records after the checkpoint (reading does not move it). */
  async read(): Promise<KinesisStreamEvent> {
    const start = await this.client.send(
      new GetShardIteratorCommand({
        StreamName: this.streamName,
        ShardId: this.shardId,
        ...(this.checkpoint
          ? { ShardIteratorType: 'AFTER_SEQUENCE_NUMBER', StartingSequenceNumber: this.checkpoint }
          : { ShardIteratorType: 'TRIM_HORIZON' }),
      }),
    );
    const out = await this.client.send(
      new GetRecordsCommand({ ShardIterator: start.ShardIterator, Limit: this.batchSize }),
    );
    return { Records: (out.Records ?? []).map((record) => this.toLambdaRecord(record)) };
  }

  /** Moves the checkpoint past the handled records, stopping before the lowest reported failure. */
  acknowledge(event: KinesisStreamEvent, response: KinesisStreamBatchResponse): void {
    const failed = new Set(response.batchItemFailures.map((failure) => failure.itemIdentifier));
    for (const record of event.Records) {
      if (failed.has(record.kinesis.sequenceNumber)) return;
      this.checkpoint = record.kinesis.sequenceNumber;
    }
  }

  /** Reads one event, invokes `handler` with it and acknowledges the answer. */
  async deliver(
    handler: (event: KinesisStreamEvent) => Promise<KinesisStreamBatchResponse>,
  ): Promise<{ event: KinesisStreamEvent; response?: KinesisStreamBatchResponse }> {
    const event = await this.read();
    if (event.Records.length === 0) return { event };
    const response = await handler(event);
    this.acknowledge(event, response);
    return { event, response };
  }

  private toLambdaRecord(record: _Record): KinesisStreamRecord {
    return kinesisRecordOf({
      streamName: this.streamName,
      shardId: this.shardId,
      sequenceNumber: record.SequenceNumber!,
      partitionKey: record.PartitionKey!,
      data: Buffer.from(record.Data!).toString('base64'),
      arrivalEpochSeconds: (record.ApproximateArrivalTimestamp?.getTime() ?? Date.now()) / 1000,
    });
  }
}

let sequence = 49_590_338_271_490_256_608_559_692_538_361_571_095_921_575_989_136n;

/**
 * A Kinesis record as Lambda delivers it, for tests that need no emulator: `value` is
 * JSON-encoded (a string is taken as the raw data text), then base64.
 */
export function kinesisRecord(
  value: unknown,
  options: { sequenceNumber?: string; shardId?: string; partitionKey?: string } = {},
): KinesisStreamRecord {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return kinesisRecordOf({
    streamName: 'orders',
    shardId: options.shardId ?? 'shardId-000000000000',
    sequenceNumber: options.sequenceNumber ?? String(sequence++),
    partitionKey: options.partitionKey ?? 'p',
    data: Buffer.from(text).toString('base64'),
    arrivalEpochSeconds: Date.now() / 1000,
  });
}

function kinesisRecordOf(fields: {
  streamName: string;
  shardId: string;
  sequenceNumber: string;
  partitionKey: string;
  data: string;
  arrivalEpochSeconds: number;
}): KinesisStreamRecord {
  return {
    kinesis: {
      kinesisSchemaVersion: '1.0',
      partitionKey: fields.partitionKey,
      sequenceNumber: fields.sequenceNumber,
      data: fields.data,
      approximateArrivalTimestamp: fields.arrivalEpochSeconds,
    },
    eventSource: 'aws:kinesis',
    eventVersion: '1.0',
    eventID: `${fields.shardId}:${fields.sequenceNumber}`,
    eventName: 'aws:kinesis:record',
    invokeIdentityArn: `arn:aws:iam::${ACCOUNT}:role/consumer`,
    awsRegion: REGION,
    eventSourceARN: `arn:aws:kinesis:${REGION}:${ACCOUNT}:stream/${fields.streamName}`,
  };
}

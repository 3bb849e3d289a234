import { DynamoDBClient, DescribeTableCommand } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { DynamoDBJournal, type JournalRecord } from '../journal/index.js';
import { RecordPrefix, RecordStatus } from '../journal/index.js';
import { IdempotencyError, JournalUnavailableError } from '../core/index.js';

/** Where the operator's commands look. */
export interface OperatorTarget {
  readonly tableName: string;
  readonly endpoint?: string;
  readonly region?: string;
  readonly clock?: () => number;
}

/** A record that no attempt will finish on its own. */
export interface StuckRecord {
  readonly pk: string;
  readonly status: string;
  readonly attempt: number;
  readonly leaseExpiredMsAgo?: number;
  readonly effectName?: string;
  readonly evidence: Record<string, string | number>;
}

/**
 * Operator actions on a journal table: inspect one record, list stuck ones, resolve one.
 * Errors name what is wrong (unknown table, unknown key, missing credentials).
 */
export class Operator {
  private readonly client: DynamoDBClient;
  private readonly journal: DynamoDBJournal;
  private readonly clock: () => number;

  constructor(private readonly target: OperatorTarget) {
    this.client = new DynamoDBClient({
      endpoint: target.endpoint,
      region: target.region ?? process.env.AWS_REGION ?? 'us-east-1',
      maxAttempts: 2,
    });
    this.clock = target.clock ?? Date.now;
    this.journal = new DynamoDBJournal({ tableName: target.tableName, client: this.client, clock: this.clock });
  }

  /** Checks that the table exists and looks like a journal (partition key `pk`). */
  async checkTable(): Promise<void> {
    try {
      const out = await this.client.send(new DescribeTableCommand({ TableName: this.target.tableName }));
      const hash = out.Table?.KeySchema?.find((k) => k.KeyType === 'HASH')?.AttributeName;
      if (hash !== 'pk')
        throw new IdempotencyError(
          'wrong-table',
          `Table ${this.target.tableName} has partition key '${hash}', not 'pk': is it the journal table?`,
        );
    } catch (error) {
      throw explain(error, this.target.tableName);
    }
  }

  /** One record, or a typed error when the key is unknown. */
  async inspect(pk: string): Promise<JournalRecord> {
    await this.checkTable();
    const record = await this.journal.get(pk).catch((error) => {
      throw explain(error, this.target.tableName);
    });
    if (!record) throw new IdempotencyError('unknown-key', `No record with pk '${pk}' in ${this.target.tableName}`);
    return record;
  }

  /** Records whose lease expired without an outcome, and `UNKNOWN` records. */
  async stuck(): Promise<StuckRecord[]> {
    await this.checkTable();
    const doc = DynamoDBDocumentClient.from(this.client);
    const now = this.clock();
    const found: StuckRecord[] = [];
    let startKey: Record<string, unknown> | undefined;
    do {
      const out = await doc
        .send(
          new ScanCommand({
            TableName: this.target.tableName,
            FilterExpression:
              '(begins_with(pk, :req) OR begins_with(pk, :msg)) AND (#status = :unknown OR (#status = :inProgress AND leaseUntil < :now))',
            ExpressionAttributeNames: { '#status': 'status' },
            ExpressionAttributeValues: {
              ':req': RecordPrefix.request,
              ':msg': RecordPrefix.message,
              ':unknown': RecordStatus.unknown,
              ':inProgress': RecordStatus.inProgress,
              ':now': now,
            },
            ExclusiveStartKey: startKey,
          }),
        )
        .catch((error) => {
          throw explain(error, this.target.tableName);
        });
      for (const item of out.Items ?? []) {
        found.push({
          pk: item.pk as string,
          status: item.status as string,
          attempt: Number(item.attempt ?? 1),
          leaseExpiredMsAgo: item.status === RecordStatus.inProgress ? now - Number(item.leaseUntil) : undefined,
          effectName: item.effectName as string | undefined,
          evidence: (item.evidence as Record<string, string | number>) ?? {},
        });
      }
      startKey = out.LastEvaluatedKey;
    } while (startKey);
    return found.sort((a, b) => a.pk.localeCompare(b.pk));
  }

  /** Resolves an `UNKNOWN` record (or an expired lease) as completed with `response`, or released. */
  async resolve(
    pk: string,
    resolution: { outcome: 'completed'; response: unknown; ttlSeconds: number } | { outcome: 'released' },
  ): Promise<void> {
    await this.inspect(pk);
    await this.journal.resolve(pk, resolution);
  }
}

function explain(error: unknown, tableName: string): Error {
  if (error instanceof IdempotencyError && !(error instanceof JournalUnavailableError)) return error;
  const cause = error instanceof JournalUnavailableError ? error.cause : error;
  const name = (cause as { name?: string })?.name ?? '';
  if (name === 'ResourceNotFoundException')
    return new IdempotencyError('unknown-table', `Table ${tableName} does not exist in this account and region`);
  if (name === 'CredentialsProviderError' || /credential/i.test(String((cause as Error)?.message))) {
    return new IdempotencyError(
      'missing-credentials',
      'No AWS credentials found: set AWS_PROFILE or AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY',
    );
  }
  return error instanceof Error ? error : new Error(String(error));
}

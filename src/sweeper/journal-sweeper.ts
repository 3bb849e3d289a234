import { DynamoDBClient, ScanCommand, type AttributeValue } from '@aws-sdk/client-dynamodb';
import { MetricUnit } from '@aws-lambda-powertools/metrics';
import type { Context } from 'aws-lambda';
import {
  assertKnownOptions,
  IdemkitEnvironment,
  InvalidOptionsError,
  readClient,
  readFunction,
  readNumber,
  readTableName,
  RecordStatus,
} from '../core/index.js';
import {
  isConditionFailure,
  isReplicatedWriteConflict,
  JournalCondition,
  PARTITION_KEY,
  RecordAttribute,
  ReplicatedItemCalls,
} from '../journal/index.js';
import { defaultMetrics, MetricName, type MetricsSink } from '../telemetry/index.js';

const OWNER = 'journalSweeper';

/** Options of {@link journalSweeper}. */
export interface JournalSweeperOptions {
  /**
   * The journal table.
   * @default process.env.IDEMKIT_TABLE_NAME (set by the JournalSweeper construct)
   */
  readonly tableName?: string;
  /**
   * The DynamoDB client of this Region's replica.
   * @default a new DynamoDBClient from the environment
   */
  readonly client?: DynamoDBClient;
  /**
   * Epoch milliseconds now.
   * @default Date.now
   */
  readonly clock?: () => number;
  /**
   * Most records one run deletes; the next run goes on where this one stopped.
   * @default 1000
   */
  readonly maxDeletesPerRun?: number;
  /**
   * Items one `Scan` page reads.
   * @default 200
   */
  readonly pageSize?: number;
  /**
   * Time kept in hand before the Lambda deadline: a run stops scanning when less remains.
   * @default 5000
   */
  readonly reserveMs?: number;
  /**
   * Where `SweptRecords` goes (Powertools `Metrics`).
   * @default a Metrics in the namespace of POWERTOOLS_METRICS_NAMESPACE, else 'Idempotency'
   */
  readonly metrics?: MetricsSink;
}

/** Defaults of {@link journalSweeper}. */
export const DEFAULT_JOURNAL_SWEEPER_OPTIONS = Object.freeze({
  maxDeletesPerRun: 1000,
  pageSize: 200,
  reserveMs: 5000,
});

/** What one sweep did. */
export interface SweepReport {
  /** Items read by the scan. */
  readonly scanned: number;
  /** Expired items deleted (records and the chunk items of their responses). */
  readonly deleted: number;
  /**
   * Items that looked expired but were not deleted: their condition failed at delete time (a retry reserved them
   * meanwhile), or cross-Region conflicts outlasted the bound.
   */
  readonly skipped: number;
  /** True when the whole table was scanned; false when the run stopped at its bound and the next one resumes. */
  readonly complete: boolean;
}

/**
 * The sweeper of a multi-Region journal (`DynamoDBJournal({ multiRegion: 'strong' })`): MRSC
 * tables have no TTL, so a scheduled function deletes what TTL would have. It scans for items
 * past `expiresAt` and deletes each with the condition that it is still expired, not `UNKNOWN`
 * and under no live lease (`JournalCondition.sweepable`), so a retry that reserves the key in
 * another Region meanwhile wins. Work per run is bounded (`maxDeletesPerRun`, the Lambda's
 * remaining time); a warm function resumes its scan where the last run stopped. Emits
 * `SweptRecords` (count per run).
 *
 * IAM: `dynamodb:Scan`, `dynamodb:DeleteItem` and `dynamodb:GetItem` on the table (the
 * JournalSweeper construct grants exactly these).
 *
 * @example
 * // src/sweeper.ts, run every 15 minutes by the JournalSweeper construct
 * export const handler = journalSweeper();
 */
export function journalSweeper(
  options: JournalSweeperOptions = {},
): (event?: unknown, context?: Pick<Context, 'getRemainingTimeInMillis'>) => Promise<SweepReport> {
  assertKnownOptions(OWNER, options, [
    'tableName',
    'client',
    'clock',
    'maxDeletesPerRun',
    'pageSize',
    'reserveMs',
    'metrics',
  ]);
  const tableName = readTableName(OWNER, 'tableName', options.tableName, process.env[IdemkitEnvironment.tableName]);
  if (tableName === undefined)
    throw new InvalidOptionsError(`${OWNER} needs a tableName (option 'tableName' or ${IdemkitEnvironment.tableName})`);
  const clock = readFunction(OWNER, 'clock', options.clock, Date.now);
  const d = DEFAULT_JOURNAL_SWEEPER_OPTIONS;
  const maxDeletes = readNumber(OWNER, 'maxDeletesPerRun', options.maxDeletesPerRun, d.maxDeletesPerRun, {
    min: 1,
    integer: true,
  });
  const pageSize = readNumber(OWNER, 'pageSize', options.pageSize, d.pageSize, { min: 1, max: 1000, integer: true });
  const reserveMs = readNumber(OWNER, 'reserveMs', options.reserveMs, d.reserveMs, { min: 0 });
  const client = readClient(OWNER, 'client', options.client, 'a DynamoDBClient') ?? new DynamoDBClient({});
  const calls = new ReplicatedItemCalls(client, tableName);
  let metrics: MetricsSink | undefined = options.metrics;
  let cursor: Record<string, AttributeValue> | undefined;

  return async function sweepJournal(_event, context): Promise<SweepReport> {
    let scanned = 0;
    let deleted = 0;
    let skipped = 0;
    const timeLeft = () => context?.getRemainingTimeInMillis?.() ?? Number.POSITIVE_INFINITY;
    do {
      const now = clock();
      const values = sweepValues(now);
      const page = await client.send(
        new ScanCommand({
          TableName: tableName,
          Limit: pageSize,
          ProjectionExpression: '#pk',
          FilterExpression: JournalCondition.sweepable,
          ExpressionAttributeNames: SWEEP_NAMES,
          ExpressionAttributeValues: {
            ':nowSeconds': { N: String(values[':nowSeconds']) },
            ':nowMs': { N: String(values[':nowMs']) },
            ':unknown': { S: values[':unknown'] },
            ':inProgress': { S: values[':inProgress'] },
          },
          ExclusiveStartKey: cursor,
        }),
      );
      scanned += page.ScannedCount ?? 0;
      cursor = page.LastEvaluatedKey;
      for (const item of page.Items ?? []) {
        try {
          await calls.delete(
            'sweep',
            { pk: item[PARTITION_KEY]!.S },
            {
              ConditionExpression: JournalCondition.sweepable,
              ExpressionAttributeNames: { '#status': RecordAttribute.status },
              ExpressionAttributeValues: sweepValues(clock()),
            },
          );
          deleted++;
        } catch (error) {
          // Reserved again meanwhile, or still contended across Regions after the bound: the next run sees it again.
          if (!isConditionFailure(error) && !isReplicatedWriteConflict(error)) throw error;
          skipped++;
        }
      }
    } while (cursor && deleted < maxDeletes && timeLeft() > reserveMs);
    const single = (metrics ??= defaultMetrics()).singleMetric();
    single.clearDefaultDimensions?.();
    single.addMetric(MetricName.sweptRecords, MetricUnit.Count, deleted);
    return { scanned, deleted, skipped, complete: cursor === undefined };
  };
}

const SWEEP_NAMES = { '#pk': PARTITION_KEY, '#status': RecordAttribute.status };

/** The values `sweepable` reads at `nowEpochMs`. */
function sweepValues(nowEpochMs: number) {
  return {
    ':nowSeconds': Math.floor(nowEpochMs / 1000),
    ':nowMs': nowEpochMs,
    ':unknown': RecordStatus.unknown,
    ':inProgress': RecordStatus.inProgress,
  };
}

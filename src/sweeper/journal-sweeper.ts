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
  sha256Hex,
} from '../core/index.js';
import {
  fromAttributeMap,
  guardedItemOf,
  isConditionFailure,
  isReplicatedWriteConflict,
  JournalCondition,
  JournalGuard,
  keyScopeOf,
  PARTITION_KEY,
  RecordAttribute,
  RecordKind,
  ReplicatedItemCalls,
  type JournalItem,
} from '../journal/index.js';
import { defaultLogger, defaultMetrics, MetricName, type LogSink, type MetricsSink } from '../telemetry/index.js';

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
   * Where `SweptRecords` and `UnreadableRecords` go (Powertools `Metrics`).
   * @default a Metrics in the namespace of POWERTOOLS_METRICS_NAMESPACE, else 'Idempotency'
   */
  readonly metrics?: MetricsSink;
  /**
   * Where each record left unreadable is logged, at error level (Powertools `Logger`).
   * @default a Logger of service POWERTOOLS_SERVICE_NAME, else 'idemkit'
   */
  readonly logger?: LogSink;
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
  /**
   * Expired items left where they are because the sweeper cannot read their state: a status the guard does not know,
   * none, or a lease that is not a number. They may stand for an effect that happened, so, as the guard does, the
   * sweeper fails closed: each is logged (error level, without its key) for an operator, and counted in
   * `UnreadableRecords`. Every run meets them again until someone resolves them.
   */
  readonly unreadable: number;
  /** True when the whole table was scanned; false when the run stopped at its bound and the next one resumes. */
  readonly complete: boolean;
}

/**
 * The sweeper of a multi-Region journal (`DynamoDBJournal({ multiRegion: strongConsistency() })`): MRSC
 * tables have no TTL, so a scheduled function deletes what TTL would have. It scans for items
 * past `expiresAt` and deletes each with the condition that it is still expired and completed,
 * in progress under an ended lease, or a response chunk (`JournalCondition.sweepable`), so a retry
 * that reserves the key in another Region meanwhile wins. It fails closed like the guard: an
 * expired item in a state it cannot read (a status it does not know, or none) is left, logged
 * and counted (`SweepReport.unreadable`). Work per run is bounded (`maxDeletesPerRun`, the
 * Lambda's remaining time); a warm function resumes its scan where the last run stopped. Emits
 * `SweptRecords` and `UnreadableRecords` (counts per run).
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
    'logger',
  ] as const satisfies readonly (keyof JournalSweeperOptions)[]);
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
  let logger: LogSink | undefined = options.logger;
  let cursor: Record<string, AttributeValue> | undefined;

  return async function sweepJournal(_event, context): Promise<SweepReport> {
    let scanned = 0;
    let deleted = 0;
    let skipped = 0;
    let unreadable = 0;
    const timeLeft = () => context?.getRemainingTimeInMillis?.() ?? Number.POSITIVE_INFINITY;
    do {
      const now = clock();
      // Every expired item comes back, not only what the sweeper deletes: the ones it cannot read are reported.
      const page = await client.send(
        new ScanCommand({
          TableName: tableName,
          Limit: pageSize,
          ProjectionExpression: SWEEP_PROJECTION,
          FilterExpression: `${RecordAttribute.expiresAt} <= :nowSeconds`,
          ExpressionAttributeNames: SWEEP_NAMES,
          ExpressionAttributeValues: { ':nowSeconds': { N: String(Math.floor(now / 1000)) } },
          ExclusiveStartKey: cursor,
        }),
      );
      scanned += page.ScannedCount ?? 0;
      cursor = page.LastEvaluatedKey;
      for (const found of page.Items ?? []) {
        const item = fromAttributeMap(found);
        const state = sweepStateOf(item, now);
        if (state === 'leased') continue;
        if (state !== 'sweepable') {
          unreadable++;
          (logger ??= defaultLogger()).error('idempotency sweeper left an unreadable record', {
            ...identityOf(String(item[PARTITION_KEY])),
            reason: state.unreadable,
          });
          continue;
        }
        try {
          await calls.delete(
            'sweep',
            { pk: item[PARTITION_KEY] },
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
    single.addMetric(MetricName.unreadableRecords, MetricUnit.Count, unreadable);
    return { scanned, deleted, skipped, unreadable, complete: cursor === undefined };
  };
}

const SWEEP_NAMES = { '#pk': PARTITION_KEY, '#status': RecordAttribute.status, '#kind': RecordAttribute.kind };
/** What the sweeper reads of an item: enough to decide it as `sweepable` does, and to say why it cannot. */
const SWEEP_PROJECTION = `#pk, #status, #kind, ${RecordAttribute.leaseUntil}, ${RecordAttribute.expiresAt}`;

/** The values `sweepable` reads at `nowEpochMs`. */
function sweepValues(nowEpochMs: number) {
  return {
    ':nowSeconds': Math.floor(nowEpochMs / 1000),
    ':nowMs': nowEpochMs,
    ':completed': RecordStatus.completed,
    ':inProgress': RecordStatus.inProgress,
    ':chunk': RecordKind.chunk,
  };
}

/**
 * What the sweeper makes of an expired item: one it deletes (`sweepable`), a record under a live
 * lease (a heartbeat carried it past its expiry: left, as a reservation would leave it), or one it
 * cannot read, with the reason.
 */
function sweepStateOf(item: JournalItem, nowEpochMs: number): 'sweepable' | 'leased' | { unreadable: string } {
  if (JournalGuard.sweepable(guardedItemOf(item), { nowEpochMs })) return 'sweepable';
  const status = item[RecordAttribute.status];
  // Past its expiry and not sweepable: in progress, only under a live lease.
  if (status === RecordStatus.inProgress)
    return typeof item[RecordAttribute.leaseUntil] === 'number'
      ? 'leased'
      : { unreadable: `attribute '${RecordAttribute.leaseUntil}' is not a number` };
  if (status === undefined) return { unreadable: 'it has no status' };
  if (typeof status !== 'string' || !KNOWN_STATUSES.has(status))
    return { unreadable: `status ${JSON.stringify(status)} is not one the guard knows` };
  return { unreadable: `status ${status} with an expiresAt, which no write of the journal leaves` };
}

const KNOWN_STATUSES: ReadonlySet<string> = new Set(Object.values(RecordStatus));

/** How a left record is named in the log: as the guard's log line names an attempt, never by its raw key. */
function identityOf(pk: string): Record<string, string> {
  const hash = (text: string) => sha256Hex(text).slice(0, 16);
  const scope = keyScopeOf(pk);
  if (scope?.kind === 'request')
    return { tenant_id: scope.tenant, operation: scope.operation, idempotency_key_hash: hash(scope.key) };
  if (scope?.kind === 'message') return { consumer: scope.consumer, message_id_hash: hash(scope.messageId) };
  return { pk_hash: hash(pk) };
}

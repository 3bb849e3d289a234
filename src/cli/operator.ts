import { DynamoDBClient, DescribeTableCommand } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, ScanCommand } from '@aws-sdk/lib-dynamodb';
import {
  DynamoDBJournal,
  JournalCondition,
  keyScopeOf,
  PARTITION_KEY,
  RecordAttribute,
  recordFromItem,
  RecordPrefix,
  RecordStatus,
  type JournalRecord,
} from '../journal/index.js';
import { IdempotencyError, JournalUnavailableError, RecordUnreadableError } from '../core/index.js';

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

/** What `stuck` found: the records it could read, and the ones it could not (each with its key and why). */
export interface StuckList {
  readonly records: StuckRecord[];
  readonly unreadable: RecordUnreadableError[];
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
      if (hash !== PARTITION_KEY)
        throw new IdempotencyError(
          'wrong-table',
          `Table ${this.target.tableName} has partition key '${hash}', not '${PARTITION_KEY}': is it the journal table?`,
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

  /**
   * Records whose lease expired without an outcome, and `UNKNOWN` records. One the guard cannot
   * read does not hide the others: it is returned apart, named by its key.
   */
  async stuck(): Promise<StuckList> {
    await this.checkTable();
    const doc = DynamoDBDocumentClient.from(this.client);
    const now = this.clock();
    const found: StuckRecord[] = [];
    const unreadable: RecordUnreadableError[] = [];
    let startKey: Record<string, unknown> | undefined;
    do {
      const out = await doc
        .send(
          new ScanCommand({
            TableName: this.target.tableName,
            // What an operator may resolve, among request and message records.
            FilterExpression: `(begins_with(#pk, :req) OR begins_with(#pk, :msg)) AND (${JournalCondition.resolvable})`,
            ExpressionAttributeNames: { '#pk': PARTITION_KEY, '#status': RecordAttribute.status },
            ExpressionAttributeValues: {
              ':req': RecordPrefix.request,
              ':msg': RecordPrefix.message,
              ':unknown': RecordStatus.unknown,
              ':inProgress': RecordStatus.inProgress,
              ':nowMs': now,
            },
            ExclusiveStartKey: startKey,
          }),
        )
        .catch((error) => {
          throw explain(error, this.target.tableName);
        });
      for (const item of out.Items ?? []) {
        let record: JournalRecord;
        try {
          record = recordFromItem(item);
        } catch (error) {
          if (!(error instanceof RecordUnreadableError)) throw error;
          unreadable.push(error);
          continue;
        }
        found.push({
          pk: record.pk,
          status: record.status,
          attempt: record.attempt,
          leaseExpiredMsAgo: record.status === RecordStatus.inProgress ? now - record.leaseUntilEpochMs : undefined,
          effectName: record.effectName,
          evidence: record.evidence,
        });
      }
      startKey = out.LastEvaluatedKey;
    } while (startKey);
    return {
      records: found.sort((a, b) => a.pk.localeCompare(b.pk)),
      unreadable: unreadable.sort((a, b) => (a.pk ?? '').localeCompare(b.pk ?? '')),
    };
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

/** Renders rows as an aligned text table. */
export function table(headers: readonly string[], rows: ReadonlyArray<readonly string[]>): string {
  const widths = headers.map((header, i) => Math.max(header.length, ...rows.map((row) => row[i]?.length ?? 0)));
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, i) => (cell ?? '').padEnd(widths[i]))
      .join('  ')
      .trimEnd();
  return [line(headers), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}

/** The stuck records as a table. */
export function stuckTable(records: readonly StuckRecord[]): string {
  if (records.length === 0) return 'No stuck records.';
  return table(
    ['PK', 'STATUS', 'ATTEMPT', 'LEASE EXPIRED', 'EFFECT', 'EVIDENCE'],
    records.map((r) => [
      r.pk,
      r.status,
      String(r.attempt),
      r.leaseExpiredMsAgo === undefined ? '-' : `${Math.round(r.leaseExpiredMsAgo / 1000)} s ago`,
      r.effectName ?? '-',
      Object.entries(r.evidence)
        .map(([k, v]) => `${k}=${v}`)
        .join(' ') || '-',
    ]),
  );
}

/** One record as a timeline an operator can read. */
export function timeline(record: JournalRecord, nowEpochMs: number): string {
  const at = (epochMs: number) => new Date(epochMs).toISOString();
  const scope = keyScopeOf(record.pk);
  const isolated = scope?.lambdaTenant === undefined ? '' : `, Lambda tenant '${scope.lambdaTenant}'`;
  const lines = [
    `record     ${record.pk}`,
    ...(scope?.kind === 'request'
      ? [`scope      tenant '${scope.tenant}', operation '${scope.operation}', key '${scope.key}'${isolated}`]
      : []),
    ...(scope?.kind === 'message'
      ? [`scope      consumer '${scope.consumer}', message '${scope.messageId}'${isolated}`]
      : []),
    `status     ${record.status}`,
    `created    ${at(record.createdAtEpochMs)}`,
    `updated    ${at(record.updatedAtEpochMs)}`,
    `attempts   ${record.attempt}`,
    `lease      until ${at(record.leaseUntilEpochMs)} (${record.leaseUntilEpochMs < nowEpochMs ? 'expired' : 'held'})`,
    `effect     ${record.effectStarted ? `started (${record.effectName ?? 'effect'})` : 'not started'}`,
    `evidence   ${
      Object.entries(record.evidence)
        .map(([k, v]) => `${k}=${v}`)
        .join(', ') || '-'
    }`,
    `expires    ${record.expiresAtEpochSeconds === undefined ? 'never (needs an outcome)' : at(record.expiresAtEpochSeconds * 1000)}`,
    `fingerprint ${record.fingerprint}`,
  ];
  if (record.response) lines.push(`outcome    ${truncate(JSON.stringify(record.response.value) ?? 'undefined', 400)}`);
  return lines.join('\n');
}

function truncate(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}… (${text.length} chars)` : text;
}

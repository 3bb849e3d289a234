import { RemovalPolicy, Stack, Token } from 'aws-cdk-lib';
import type { IMetric, MetricOptions } from 'aws-cdk-lib/aws-cloudwatch';
import {
  AttributeType,
  Billing,
  BillingMode,
  MultiRegionConsistency,
  Operation,
  StreamViewType,
  Table,
  TableEncryption,
  TableV2,
  type ITable,
} from 'aws-cdk-lib/aws-dynamodb';
import { Grant, type IGrantable } from 'aws-cdk-lib/aws-iam';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import { Construct, type IConstruct } from 'constructs';
import { PARTITION_KEY, TTL_ATTRIBUTE } from '../src/journal/schema.js';

/**
 * The exact DynamoDB actions the runtime calls on the journal table.
 *
 * `TransactWriteItems` is authorized per item action (Put/Update/Delete/ConditionCheck), so
 * it needs no action of its own; `BatchWriteItem` and `BatchGetItem` are authorized as
 * themselves and carry the chunks of responses too large for one item. `DescribeTable`,
 * `Query` and `Scan` are never called.
 */
export const JOURNAL_ACTIONS: readonly string[] = Object.freeze([
  'dynamodb:GetItem',
  'dynamodb:PutItem',
  'dynamodb:UpdateItem',
  'dynamodb:DeleteItem',
  'dynamodb:ConditionCheckItem',
  'dynamodb:BatchGetItem',
  'dynamodb:BatchWriteItem',
]);

/**
 * The exact DynamoDB actions of the operator CLI (`idemkit inspect | stuck | resolve`):
 * `DescribeTable` checks that the table is a journal, `Scan` finds stuck records, `GetItem`
 * and `BatchGetItem` read a record and its response chunks, `UpdateItem` resolves as
 * completed (with `BatchWriteItem` for a large response), `DeleteItem` resolves as released.
 */
export const OPERATOR_ACTIONS: readonly string[] = Object.freeze([
  'dynamodb:DescribeTable',
  'dynamodb:Scan',
  'dynamodb:GetItem',
  'dynamodb:BatchGetItem',
  'dynamodb:UpdateItem',
  'dynamodb:DeleteItem',
  'dynamodb:BatchWriteItem',
]);

/**
 * An idempotency journal: a table created by {@link IdempotencyJournalTable} or imported with
 * `IdempotencyJournalTable.fromTableName` / `fromTableAttributes`. Every construct that takes
 * a journal takes this interface.
 */
export interface IIdempotencyJournal extends IConstruct {
  /** The underlying table. */
  readonly table: ITable;
  /** The table's name. */
  readonly tableName: string;
  /** The table's ARN. */
  readonly tableArn: string;
  /**
   * ARN of the table's stream (`NEW_IMAGE` or `NEW_AND_OLD_IMAGES`), which feeds the outbox dispatcher.
   * @default - unknown for a table imported without `tableStreamArn`
   */
  readonly tableStreamArn?: string;
  /**
   * The customer-managed key that encrypts the table.
   * @default - an AWS owned or AWS managed key
   */
  readonly encryptionKey?: IKey;
  /** Grants what a guarded function calls: {@link JOURNAL_ACTIONS} on the table ARN only. */
  grantJournalAccess(grantee: IGrantable): Grant;
  /** Grants what the operator CLI calls: {@link OPERATOR_ACTIONS} on the table ARN only. */
  grantOperatorAccess(grantee: IGrantable): Grant;
  /** Requests throttled on the operations the runtime uses (sum per period). */
  metricThrottledRequests(props?: MetricOptions): IMetric;
  /** Server-side errors on the operations the runtime uses (sum per period). */
  metricSystemErrors(props?: MetricOptions): IMetric;
  /** Failed conditional writes (sum per period). */
  metricConditionalCheckFailedRequests(props?: MetricOptions): IMetric;
  /** Transactions rejected because another request touched one of their items (sum per period). */
  metricTransactionConflicts(props?: MetricOptions): IMetric;
}

/** Attributes of a journal table created elsewhere, for {@link IdempotencyJournalTable.fromTableAttributes}. */
export interface IdempotencyJournalAttributes {
  /** The table's name (partition key `pk`, TTL on `expiresAt`). */
  readonly tableName: string;
  /**
   * The table's stream ARN; required to feed an `OutboxDispatcher`.
   * @default - no stream
   */
  readonly tableStreamArn?: string;
  /**
   * The customer-managed key that encrypts the table; grants then include it.
   * @default - an AWS owned or AWS managed key
   */
  readonly encryptionKey?: IKey;
}

/**
 * What every journal construct shares: least-privilege grants and table metrics over
 * {@link table}. Extended by the table this library creates and by imported ones.
 */
export abstract class IdempotencyJournalBase extends Construct implements IIdempotencyJournal {
  /** The underlying table. */
  public abstract readonly table: ITable;
  /** The customer-managed key, when there is one. */
  public abstract readonly encryptionKey?: IKey;

  /** The table's name. */
  public get tableName(): string {
    return this.table.tableName;
  }

  /** The table's ARN. */
  public get tableArn(): string {
    return this.table.tableArn;
  }

  /** The table's stream ARN, when known. */
  public get tableStreamArn(): string | undefined {
    return this.table.tableStreamArn;
  }

  /**
   * Grants the runtime's journal access on this table's ARN only (no index, no stream, no
   * wildcard): `dynamodb:GetItem`, `PutItem`, `UpdateItem`, `DeleteItem`,
   * `ConditionCheckItem`, `BatchGetItem` and `BatchWriteItem`; plus encrypt/decrypt on the
   * customer-managed key, if any.
   *
   * @example journal.grantJournalAccess(createPaymentFunction);
   */
  public grantJournalAccess(grantee: IGrantable): Grant {
    return this.grantOnTable(grantee, JOURNAL_ACTIONS);
  }

  /**
   * Grants what the operator CLI (`idemkit inspect | stuck | resolve`) calls, on this table's
   * ARN only: `dynamodb:DescribeTable`, `Scan`, `GetItem`, `BatchGetItem`, `UpdateItem`,
   * `DeleteItem` and `BatchWriteItem`; plus encrypt/decrypt on the customer-managed key, if any.
   *
   * @example journal.grantOperatorAccess(Role.fromRoleName(this, 'OnCall', 'on-call'));
   */
  public grantOperatorAccess(grantee: IGrantable): Grant {
    return this.grantOnTable(grantee, OPERATOR_ACTIONS);
  }

  /** Requests throttled on the operations the runtime uses (sum per period). */
  public metricThrottledRequests(props?: MetricOptions): IMetric {
    return this.table.metricThrottledRequestsForOperations({ ...props, operations: RUNTIME_OPERATIONS });
  }

  /** Server-side errors on the operations the runtime uses (sum per period). */
  public metricSystemErrors(props?: MetricOptions): IMetric {
    return this.table.metricSystemErrorsForOperations({ ...props, operations: RUNTIME_OPERATIONS });
  }

  /**
   * Failed conditional writes. Expected on every replay and collision; a sudden rise
   * without a rise in `Replay` hints at contention.
   */
  public metricConditionalCheckFailedRequests(props?: MetricOptions): IMetric {
    return this.table.metricConditionalCheckFailedRequests({ statistic: 'Sum', ...props });
  }

  /** Transactions rejected because another request touched one of their items. */
  public metricTransactionConflicts(props?: MetricOptions): IMetric {
    return this.table.metric('TransactionConflict', { statistic: 'Sum', ...props });
  }

  private grantOnTable(grantee: IGrantable, actions: readonly string[]): Grant {
    const grant = Grant.addToPrincipal({ grantee, actions: [...actions], resourceArns: [this.table.tableArn] });
    this.encryptionKey?.grantEncryptDecrypt(grantee);
    return grant;
  }
}

/** Properties of an {@link IdempotencyJournalTable}. */
export interface IdempotencyJournalTableProps {
  /**
   * Physical table name.
   * @default - generated by CloudFormation
   */
  readonly tableName?: string;
  /**
   * Customer-managed KMS key that encrypts the table (and its stream).
   * @default - an AWS owned key
   */
  readonly encryptionKey?: IKey;
  /**
   * Whether point-in-time recovery is enabled.
   * @default true
   */
  readonly pointInTimeRecovery?: boolean;
  /**
   * What happens to the table when it leaves the stack. Retained by default because an
   * `UNKNOWN` record may be the only trace of an effect that needs review.
   * @default RemovalPolicy.RETAIN
   */
  readonly removalPolicy?: RemovalPolicy;
  /**
   * Whether DynamoDB deletion protection is on: a retained journal should not be deleted by
   * a stray `delete-table` either.
   * @default true
   */
  readonly deletionProtection?: boolean;
  /**
   * One journal for an API served from several Regions: a DynamoDB global table with
   * multi-Region strong consistency (MRSC), replicated to `replicaRegions` besides this stack's
   * Region (two of them, or one plus a `witnessRegion`), all in one MRSC Region set. It has no
   * TTL (a `JournalSweeper` deletes expired records) and a `NEW_IMAGE` stream; the runtime must
   * use `new DynamoDBJournal({ multiRegion: strongConsistency() })` (from `idemkit/multi-region`), and functions in each Region reach
   * their local replica by the same table name. What DynamoDB refuses is refused at synth: a
   * Region-agnostic stack, Region tokens, a wrong Region count, Regions outside one set, and a
   * customer-managed key (a KMS key is regional). An eventually consistent (MREC) journal is
   * never built: it lets two Regions reserve one key.
   * @default - a single-Region table
   */
  readonly multiRegion?: MultiRegionJournalProps;
}

/** The Regions of a multi-Region journal (see {@link IdempotencyJournalTableProps.multiRegion}). */
export interface MultiRegionJournalProps {
  /** Regions holding a replica besides the stack's own: two, or one with a `witnessRegion`. */
  readonly replicaRegions: readonly string[];
  /**
   * A Region that takes part in every write's quorum without holding a readable replica.
   * @default - none: three replicas
   */
  readonly witnessRegion?: string;
}

/**
 * The Region sets of DynamoDB multi-Region strong consistency: every Region of an MRSC table
 * (replicas and witness) comes from one set. From AWS's `AWS::DynamoDB::GlobalTable
 * GlobalTableWitness` reference; aws-cdk-lib's `TableV2` checks the same sets.
 */
export const MRSC_REGION_SETS: Readonly<Record<string, readonly string[]>> = Object.freeze({
  US: Object.freeze(['us-east-1', 'us-east-2', 'us-west-2']),
  EU: Object.freeze(['eu-west-1', 'eu-west-2', 'eu-west-3', 'eu-central-1']),
  AP: Object.freeze(['ap-northeast-1', 'ap-northeast-2', 'ap-northeast-3']),
});

/**
 * The DynamoDB table that holds every idempotency, inbox, uniqueness and outbox record.
 *
 * Partition key `pk` (string), no sort key, on-demand, TTL on `expiresAt`, point-in-time
 * recovery, encryption at rest, deletion protection and a `NEW_IMAGE` stream that feeds the
 * outbox dispatcher. A table created elsewhere serves too: see {@link fromTableName} and
 * {@link fromTableAttributes}.
 *
 * @example
 * const journal = new IdempotencyJournalTable(this, 'Journal');
 * new IdemkitFunction(this, 'CreatePayment', { entry: 'src/create-payment.ts', journal });
 */
export class IdempotencyJournalTable extends IdempotencyJournalBase {
  /**
   * A journal table that exists already, by name: grants and metrics work; an
   * `OutboxDispatcher` needs its stream, so use {@link fromTableAttributes} for that.
   *
   * @example const journal = IdempotencyJournalTable.fromTableName(this, 'Journal', 'payments-journal');
   */
  public static fromTableName(scope: Construct, id: string, tableName: string): IIdempotencyJournal {
    return IdempotencyJournalTable.fromTableAttributes(scope, id, { tableName });
  }

  /**
   * A journal table that exists already, with its stream (for an `OutboxDispatcher`) and its
   * customer-managed key (so grants include it).
   *
   * @example
   * const journal = IdempotencyJournalTable.fromTableAttributes(this, 'Journal', {
   *   tableName: 'payments-journal',
   *   tableStreamArn: 'arn:aws:dynamodb:eu-west-1:123456789012:table/payments-journal/stream/2024-01-01T00:00:00.000',
   * });
   */
  public static fromTableAttributes(
    scope: Construct,
    id: string,
    attributes: IdempotencyJournalAttributes,
  ): IIdempotencyJournal {
    return new ImportedIdempotencyJournal(scope, id, attributes);
  }

  /** The underlying table: a `TableV2` (global table, MRSC) when `multiRegion` was given. */
  public readonly table: Table | TableV2;
  /** The customer-managed key, when one was given. */
  public readonly encryptionKey?: IKey;
  /** The Regions of the multi-Region journal, with the stack's first; undefined for a single-Region one. */
  public readonly regions?: readonly string[];

  constructor(scope: Construct, id: string, props: IdempotencyJournalTableProps = {}) {
    super(scope, id);
    this.encryptionKey = props.encryptionKey;
    if (props.multiRegion) {
      this.regions = checkedMrscRegions(this, props);
      this.table = new TableV2(this, 'Table', {
        tableName: props.tableName,
        partitionKey: { name: PARTITION_KEY, type: AttributeType.STRING },
        billing: Billing.onDemand(),
        // No timeToLiveAttribute: MRSC tables have no TTL; the JournalSweeper deletes expired records.
        dynamoStream: StreamViewType.NEW_IMAGE,
        multiRegionConsistency: MultiRegionConsistency.STRONG,
        replicas: props.multiRegion.replicaRegions.map((region) => ({ region })),
        witnessRegion: props.multiRegion.witnessRegion,
        pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: props.pointInTimeRecovery ?? true },
        removalPolicy: props.removalPolicy ?? RemovalPolicy.RETAIN,
        deletionProtection: props.deletionProtection ?? true,
      });
      return;
    }
    this.table = new Table(this, 'Table', {
      tableName: props.tableName,
      partitionKey: { name: PARTITION_KEY, type: AttributeType.STRING },
      billingMode: BillingMode.PAY_PER_REQUEST,
      timeToLiveAttribute: TTL_ATTRIBUTE,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: props.pointInTimeRecovery ?? true },
      encryption: props.encryptionKey ? TableEncryption.CUSTOMER_MANAGED : TableEncryption.DEFAULT,
      encryptionKey: props.encryptionKey,
      stream: StreamViewType.NEW_IMAGE,
      removalPolicy: props.removalPolicy ?? RemovalPolicy.RETAIN,
      deletionProtection: props.deletionProtection ?? true,
    });
  }
}

/** The Regions of a multi-Region journal, checked as DynamoDB checks them, with a message that says what to change. */
function checkedMrscRegions(journal: Construct, props: IdempotencyJournalTableProps): string[] {
  const where = `IdempotencyJournalTable ${journal.node.path}: multiRegion`;
  const { replicaRegions, witnessRegion } = props.multiRegion!;
  const home = Stack.of(journal).region;
  if (Token.isUnresolved(home))
    throw new Error(`${where} needs a stack with an explicit env.region (MRSC Regions are checked at synth)`);
  if (props.encryptionKey)
    throw new Error(`${where} cannot use a customer-managed key (a KMS key is regional); omit encryptionKey`);
  const regions = [home, ...replicaRegions, ...(witnessRegion === undefined ? [] : [witnessRegion])];
  if (regions.some((region) => typeof region !== 'string' || Token.isUnresolved(region)))
    throw new Error(`${where}: every Region must be a literal Region name, not a token`);
  if (new Set(regions).size !== regions.length)
    throw new Error(`${where}: the stack's Region (${home}), the replica and witness Regions must all differ`);
  const wanted = witnessRegion === undefined ? 2 : 1;
  if (replicaRegions.length !== wanted)
    throw new Error(
      `${where}: MRSC needs three Regions holding replicas, or two and a witness: give ${wanted} replicaRegions ` +
        `besides the stack's Region ${home}${witnessRegion === undefined ? ' (or one and a witnessRegion)' : ''}, got ${replicaRegions.length}`,
    );
  const set = Object.entries(MRSC_REGION_SETS).find(([, members]) => members.includes(home));
  if (!set)
    throw new Error(
      `${where}: the stack's Region ${home} is in no MRSC Region set (${Object.values(MRSC_REGION_SETS).flat().join(', ')})`,
    );
  const outside = regions.filter((region) => !set[1].includes(region));
  if (outside.length > 0)
    throw new Error(
      `${where}: ${outside.join(', ')} not in the ${set[0]} Region set of ${home} (${set[1].join(', ')})`,
    );
  return regions.slice(0, 1 + replicaRegions.length);
}

/** A journal table created outside this stack (or app). */
class ImportedIdempotencyJournal extends IdempotencyJournalBase {
  public readonly table: ITable;
  public readonly encryptionKey?: IKey;

  constructor(scope: Construct, id: string, attributes: IdempotencyJournalAttributes) {
    super(scope, id);
    this.encryptionKey = attributes.encryptionKey;
    this.table = Table.fromTableAttributes(this, 'Table', {
      tableName: attributes.tableName,
      tableStreamArn: attributes.tableStreamArn,
      encryptionKey: attributes.encryptionKey,
    });
  }
}

const RUNTIME_OPERATIONS = [
  Operation.GET_ITEM,
  Operation.PUT_ITEM,
  Operation.UPDATE_ITEM,
  Operation.DELETE_ITEM,
  Operation.TRANSACT_WRITE_ITEMS,
];

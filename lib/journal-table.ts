import { RemovalPolicy } from 'aws-cdk-lib';
import type { IMetric, MetricOptions } from 'aws-cdk-lib/aws-cloudwatch';
import {
  AttributeType,
  BillingMode,
  Operation,
  StreamViewType,
  Table,
  TableEncryption,
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
}

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

  /** The underlying table. */
  public readonly table: Table;
  /** The customer-managed key, when one was given. */
  public readonly encryptionKey?: IKey;

  constructor(scope: Construct, id: string, props: IdempotencyJournalTableProps = {}) {
    super(scope, id);
    this.encryptionKey = props.encryptionKey;
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

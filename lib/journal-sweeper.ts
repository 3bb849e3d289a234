import { Duration } from 'aws-cdk-lib';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { Runtime } from 'aws-cdk-lib/aws-lambda';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import { Construct } from 'constructs';
import { IdemkitEnvironment } from '../src/core/environment.js';
import { IdemkitFunction } from './idemkit-function.js';
import type { IIdempotencyJournal } from './journal-table.js';

/** Properties of a {@link JournalSweeper}. */
export interface JournalSweeperProps {
  /** The multi-Region journal whose expired records the sweeper deletes (its local replica). */
  readonly journal: IIdempotencyJournal;
  /** Path to the handler entry file: `export const handler = journalSweeper();`. */
  readonly entry: string;
  /**
   * Name of the exported handler.
   * @default 'handler'
   */
  readonly handler?: string;
  /**
   * How often it runs. Expired records are already treated as absent, so this only bounds storage.
   * @default Schedule.rate(Duration.minutes(15))
   */
  readonly schedule?: Schedule;
  /**
   * Lambda runtime. (A literal default here; the other constructs share one default constant.)
   * @default Runtime.NODEJS_24_X
   */
  readonly runtime?: Runtime;
  /**
   * Function timeout: one run stops scanning a few seconds before it.
   * @default Duration.minutes(5)
   */
  readonly timeout?: Duration;
  /**
   * `POWERTOOLS_SERVICE_NAME` of the function.
   * @default 'idemkit'
   */
  readonly serviceName?: string;
}

/**
 * The sweeper of a multi-Region journal: MRSC tables have no TTL, so a function on a schedule
 * deletes expired, non-`UNKNOWN` records with the condition that they are still expired
 * (`journalSweeper` in the runtime). One per journal is enough (a delete reaches every
 * Region); a second Region's sweeper only finds less to do. It may `Scan`, `GetItem` and
 * `DeleteItem` on the journal table, nothing else.
 *
 * @example
 * // src/sweeper.ts: export const handler = journalSweeper();
 * new JournalSweeper(this, 'Sweeper', { journal, entry: 'src/sweeper.ts' });
 */
export class JournalSweeper extends Construct {
  /** The sweeper function. */
  public readonly function: NodejsFunction;
  /** The schedule that runs it. */
  public readonly rule: Rule;

  constructor(scope: Construct, id: string, props: JournalSweeperProps) {
    super(scope, id);
    this.function = new IdemkitFunction(this, 'Sweeper', {
      entry: props.entry,
      handler: props.handler,
      serviceName: props.serviceName,
      runtime: props.runtime ?? Runtime.NODEJS_24_X,
      timeout: props.timeout ?? Duration.minutes(5),
      environment: { [IdemkitEnvironment.tableName]: props.journal.tableName },
      // One run at a time: two would scan the same pages and race on the same deletes.
      reservedConcurrentExecutions: 1,
    }).function;
    this.function.addToRolePolicy(
      new PolicyStatement({
        actions: ['dynamodb:Scan', 'dynamodb:GetItem', 'dynamodb:DeleteItem'],
        resources: [props.journal.tableArn],
      }),
    );
    props.journal.encryptionKey?.grantEncryptDecrypt(this.function);
    this.rule = new Rule(this, 'Schedule', {
      schedule: props.schedule ?? Schedule.rate(Duration.minutes(15)),
      targets: [new LambdaFunction(this.function, { retryAttempts: 0 })],
    });
  }
}

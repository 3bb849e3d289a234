import { Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import {
  ApplicationLogLevel,
  Architecture,
  LoggingFormat,
  type Runtime,
  SystemLogLevel,
  Tracing,
} from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { DEFAULT_METRICS_NAMESPACE, DEFAULT_SERVICE_NAME } from '../src/telemetry/metric-names.js';
import { IdemkitEnvironment } from '../src/core/environment.js';
import { bundleTargetOf, DEFAULT_FUNCTION_RUNTIME } from './function-runtime.js';
import type { IIdempotencyJournal } from './journal-table.js';

/**
 * ESM bundles cannot `require()` Node built-ins that CommonJS dependencies still ask for;
 * this banner gives them a real `require`.
 */
const REQUIRE_SHIM_BANNER =
  "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);";

/** Properties of an {@link IdemkitFunction}. */
export interface IdemkitFunctionProps {
  /** Path to the handler's TypeScript (or JavaScript) entry file. */
  readonly entry: string;
  /**
   * Name of the exported handler.
   * @default 'handler'
   */
  readonly handler?: string;
  /**
   * Journal the handler guards itself with: sets `IDEMKIT_TABLE_NAME` (which `new DynamoDBJournal()`
   * reads) and grants journal access.
   * @default - no journal wiring
   */
  readonly journal?: IIdempotencyJournal;
  /**
   * The guarded operation this function serves: part of the scope of every record its
   * `httpIdempotency` or `makeIdempotent` writes, and their `Operation` metric dimension. Set as
   * `IDEMKIT_OPERATION`, which both read when their `operation` option is absent, so the runtime
   * emits the dimension that `IdempotencyDashboard({ operations: [...] })` alarms on for that name.
   * Give it to a function that serves one operation; renaming it puts new records in a new scope
   * (a retry sent across that deployment runs again).
   * @default - not set: `httpIdempotency` uses the event's `${method} ${route}`, `makeIdempotent` its option
   */
  readonly operationName?: string;
  /**
   * The Powertools idempotency table the handler reads while moving from Powertools
   * (`migrateFrom`): grants `dynamodb:GetItem` on it and nothing else (plus `kms:Decrypt` when
   * it has a customer-managed key). Pass its name to the handler through `environment`.
   * @default - no Powertools table
   */
  readonly powertoolsTable?: ITable;
  /**
   * `POWERTOOLS_SERVICE_NAME` of the function's logs and metrics.
   * @default 'idemkit'
   */
  readonly serviceName?: string;
  /**
   * CloudWatch namespace of the runtime's metrics (`POWERTOOLS_METRICS_NAMESPACE`).
   * @default DEFAULT_METRICS_NAMESPACE ('Idempotency')
   */
  readonly metricsNamespace?: string;
  /**
   * Extra environment variables.
   * @default - only the toolkit's variables
   */
  readonly environment?: Record<string, string>;
  /**
   * Function timeout. The default lease ends one second after it.
   * @default Duration.seconds(10)
   */
  readonly timeout?: Duration;
  /**
   * Memory in MiB.
   * @default 512
   */
  readonly memorySize?: number;
  /**
   * Lambda runtime (Node.js `nodejs22.x` or `nodejs24.x`); the bundle targets the same Node version.
   * @default DEFAULT_FUNCTION_RUNTIME (Runtime.NODEJS_24_X)
   */
  readonly runtime?: Runtime;
  /**
   * Instruction set.
   * @default Architecture.ARM_64
   */
  readonly architecture?: Architecture;
  /**
   * Retention of the function's log group.
   * @default RetentionDays.ONE_MONTH
   */
  readonly logRetention?: RetentionDays;
  /**
   * Reserved concurrency.
   * @default - unreserved
   */
  readonly reservedConcurrentExecutions?: number;
  /**
   * Whether stack traces are mapped back to the TypeScript sources: a minified bundle with a
   * source map and `NODE_OPTIONS=--enable-source-maps`. Measured (`bench/source-maps.ts`), the
   * flag adds about 200 ms to the bundle's import and about 300 ms to the first stack trace, so
   * it is off by default: the bundle is then left unminified, which imports as fast and keeps
   * function names and module paths readable in stack traces.
   * @default false
   */
  readonly sourceMaps?: boolean;
}

/**
 * A `NodejsFunction` with the toolkit's defaults: ESM bundle (AWS SDK included, so the
 * deployed SDK is the tested one), unminified without source maps unless `sourceMaps` is on,
 * X-Ray tracing, JSON logs into its own log group, and a role that may write only to that log
 * group until grants are added.
 *
 * @example
 * // src/create-payment.ts guards itself with `new DynamoDBJournal()`: the table named by IDEMKIT_TABLE_NAME
 * const createPayment = 'POST /payments'; // its records' scope and the Operation dimension the alarms watch
 * new IdemkitFunction(this, 'CreatePayment', { entry: 'src/create-payment.ts', journal, operationName: createPayment });
 * new IdempotencyDashboard(this, 'Dashboard', { operations: [createPayment], journal });
 */
export class IdemkitFunction extends Construct {
  /** The Lambda function. */
  public readonly function: NodejsFunction;
  /** The function's execution role. */
  public readonly role: Role;
  /** The function's log group. */
  public readonly logGroup: LogGroup;
  /** The operation name set as `IDEMKIT_OPERATION` (the `Operation` metric dimension), if one was given. */
  public readonly operationName?: string;

  constructor(scope: Construct, id: string, props: IdemkitFunctionProps) {
    super(scope, id);
    this.operationName = props.operationName;
    this.logGroup = new LogGroup(this, 'LogGroup', {
      retention: props.logRetention ?? RetentionDays.ONE_MONTH,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    this.role = new Role(this, 'Role', { assumedBy: new ServicePrincipal('lambda.amazonaws.com') });
    this.logGroup.grantWrite(this.role);
    const runtime = props.runtime ?? DEFAULT_FUNCTION_RUNTIME;
    const sourceMaps = props.sourceMaps ?? false;
    this.function = new NodejsFunction(this, 'Function', {
      entry: props.entry,
      handler: props.handler ?? 'handler',
      runtime,
      architecture: props.architecture ?? Architecture.ARM_64,
      timeout: props.timeout ?? Duration.seconds(10),
      memorySize: props.memorySize ?? 512,
      reservedConcurrentExecutions: props.reservedConcurrentExecutions,
      role: this.role,
      logGroup: this.logGroup,
      loggingFormat: LoggingFormat.JSON,
      applicationLogLevelV2: ApplicationLogLevel.INFO,
      systemLogLevelV2: SystemLogLevel.WARN,
      tracing: Tracing.ACTIVE,
      environment: {
        [IdemkitEnvironment.serviceName]: props.serviceName ?? DEFAULT_SERVICE_NAME,
        [IdemkitEnvironment.metricsNamespace]: props.metricsNamespace ?? DEFAULT_METRICS_NAMESPACE,
        ...(sourceMaps ? { NODE_OPTIONS: '--enable-source-maps' } : {}),
        ...(props.journal ? { [IdemkitEnvironment.tableName]: props.journal.tableName } : {}),
        ...(props.operationName === undefined ? {} : { [IdemkitEnvironment.operation]: props.operationName }),
        ...props.environment,
      },
      bundling: {
        format: OutputFormat.ESM,
        mainFields: ['module', 'main'],
        banner: REQUIRE_SHIM_BANNER,
        bundleAwsSDK: true,
        minify: sourceMaps,
        sourceMap: sourceMaps,
        target: bundleTargetOf(runtime),
      },
    });
    props.journal?.grantJournalAccess(this.function);
    if (props.powertoolsTable) {
      // Its records are only read: one GetItem per new key, never a write.
      this.function.addToRolePolicy(
        new PolicyStatement({ actions: ['dynamodb:GetItem'], resources: [props.powertoolsTable.tableArn] }),
      );
      props.powertoolsTable.encryptionKey?.grantDecrypt(this.function);
    }
    Validations.of(this.role).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason: 'X-Ray PutTraceSegments and PutTelemetryRecords support no resource-level permissions.',
    });
  }
}

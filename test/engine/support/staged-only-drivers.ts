import middy from '@middy/core';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, PutCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { randomBytes } from 'node:crypto';
import {
  DynamoDBJournal,
  fromBodyField,
  httpIdempotency,
  idempotencyOf,
  IdempotencyError,
  makeIdempotent,
  sqsConsumer,
  type GuardOptions,
  type IdempotencyScope,
  type LogSink,
  type MetricsSink,
} from '../../../src/index.js';
import { countCalls, createJournalTable, createTable, localClient } from '../../support/dynamodb.js';
import { httpEvent, lambdaContext } from '../../support/lambda.js';
import { sqsRecord } from '../../support/sqs.js';
import { messagePk, requestPk } from '../../../src/entries/journal.js';

/** The three entry points, each translating its own event into one staged-only attempt. */
export const ENTRY_POINTS = ['http', 'function', 'sqs'] as const;
export type EntryPoint = (typeof ENTRY_POINTS)[number];

/** The record of `key` as each entry point scopes it. */
export function pkOf(entryPoint: EntryPoint, key: string): string {
  if (entryPoint === 'http') return requestPk('-', 'POST /payments', key);
  if (entryPoint === 'function') return requestPk('-', 'pay', key);
  return messagePk('payments', key);
}

/** A payment request: the same fields reach the handler whatever the entry point. */
export interface Payment {
  readonly key: string;
  readonly amount: number;
  readonly account?: string;
}

/** What the payment handler does besides staging its ledger entry. */
export interface Behaviour {
  /** Stage no ledger entry: the attempt commits its record alone. */
  readonly stagesNothing?: boolean;
  /** Also stage a debit of `account` conditioned on its balance covering the amount. */
  readonly debit?: boolean;
  /** Also claim this order id for good. */
  readonly claim?: string;
  /** Also stage a condition on an item that does not exist. */
  readonly requireMissingRow?: boolean;
  /** Also stage a write to a table that does not exist. */
  readonly writeToMissingTable?: boolean;
  /** Throw after staging. */
  readonly throws?: boolean;
  /** HTTP status to answer (HTTP only). @default 201 */
  readonly status?: number;
  /** Add an incompressible field of about this many bytes to the outcome. */
  readonly blobBytes?: number;
  /** Call beginEffect, recordEvidence and heartbeat and report what each did. */
  readonly leaseOps?: boolean;
  /** Hold the handler: `entered` is called, then it waits for `release`. */
  readonly hold?: { readonly entered: () => void; readonly release: Promise<void> };
}

/** One attempt as its caller and its log line saw it. */
export interface Answer {
  /** `idempotency_status` of the attempt's log line. */
  readonly status?: string;
  /** The problem type's last segment (HTTP), the error code (function), or the reported error code (queue). */
  readonly code?: string;
  readonly httpStatus?: number;
  readonly replayed?: boolean;
  /** The outcome the caller received (HTTP: the parsed body; function: the result). */
  readonly result?: Record<string, unknown>;
  /** The raw HTTP body, for byte comparisons. */
  readonly body?: string;
  /** DynamoDB calls of this attempt, by command. */
  readonly commands: readonly string[];
}

/** A warm container of one entry point: its own client, journal, guard and telemetry. */
export interface Container {
  send(payment: Payment): Promise<Answer>;
  readonly client: DynamoDBClient;
}

/** The tables and counters the drivers of one test file share. */
export class StagedOnlyWorld {
  /** Handler runs per idempotency key. */
  readonly runs = new Map<string, number>();

  private constructor(
    readonly client: DynamoDBClient,
    readonly journalTable: string,
    readonly domainTable: string,
  ) {}

  static async create(): Promise<StagedOnlyWorld> {
    const client = localClient();
    const [journalTable, domainTable] = await Promise.all([createJournalTable(client), createTable(client, 'ledger')]);
    return new StagedOnlyWorld(client, journalTable, domainTable);
  }

  /** A journal on the shared table through `client` (a fresh one by default, as a new container would have). */
  journal(client: DynamoDBClient = this.client, clock?: () => number): DynamoDBJournal {
    return new DynamoDBJournal({ tableName: this.journalTable, client, clock });
  }

  /** Ledger entries committed for `key`. */
  async entries(key: string): Promise<number> {
    const doc = DynamoDBDocumentClient.from(this.client);
    const out = await doc.send(
      new ScanCommand({
        TableName: this.domainTable,
        ConsistentRead: true,
        FilterExpression: '#key = :key',
        ExpressionAttributeNames: { '#key': 'key' },
        ExpressionAttributeValues: { ':key': key },
      }),
    );
    return out.Count ?? 0;
  }

  /** The balance of `account`, undefined when it does not exist. */
  async balance(account: string): Promise<number | undefined> {
    const doc = DynamoDBDocumentClient.from(this.client);
    const out = await doc.send(
      new ScanCommand({
        TableName: this.domainTable,
        ConsistentRead: true,
        FilterExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': `acct#${account}` },
      }),
    );
    return out.Items?.[0]?.balance as number | undefined;
  }

  /** Opens `account` with `balance`. */
  async openAccount(account: string, balance: number): Promise<void> {
    const doc = DynamoDBDocumentClient.from(this.client);
    await doc.send(new PutCommand({ TableName: this.domainTable, Item: { pk: `acct#${account}`, balance } }));
  }

  /**
   * A container of `entryPoint` running the payment handler under `effects: 'staged-only'`;
   * `clock` is the time its guard and its journal read (epoch ms, `Date.now` by default).
   */
  container(
    entryPoint: EntryPoint,
    behaviour: Behaviour = {},
    options: { client?: DynamoDBClient; clock?: () => number; guard?: Partial<GuardOptions> } = {},
  ): Container {
    const client = options.client ?? localClient();
    const calls = countCalls(client);
    const telemetry = captureTelemetry();
    const guard: GuardOptions = {
      journal: this.journal(client, options.clock),
      ...(options.clock ? { clock: options.clock } : {}),
      effects: 'staged-only',
      logger: telemetry.logger,
      metrics: telemetry.metrics,
      ...options.guard,
    };
    const handle = (scope: IdempotencyScope, payment: Payment) => this.pay(scope, payment, behaviour);
    const send = sender(entryPoint, guard, handle, behaviour);
    return {
      client,
      async send(payment) {
        calls.reset();
        telemetry.lines.length = 0;
        const answer = await send(payment, telemetry);
        const line = telemetry.lines.find((l) => l.idempotency_status !== undefined);
        return {
          ...answer,
          status: line?.idempotency_status as string | undefined,
          commands: [...calls.byCommand].flatMap(([name, n]) => Array(n).fill(name.replace(/Command$/, ''))),
        };
      },
    };
  }

  private async pay(scope: IdempotencyScope, payment: Payment, behaviour: Behaviour): Promise<Record<string, unknown>> {
    const run = (this.runs.get(payment.key) ?? 0) + 1;
    this.runs.set(payment.key, run);
    const entryId = `entry#${scope.deriveKey('entry')}`;
    if (!behaviour.stagesNothing) {
      scope.stage({
        Put: {
          TableName: this.domainTable,
          Item: { pk: entryId, key: payment.key, amount: payment.amount },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      });
    }
    if (behaviour.debit) {
      scope.stage({
        Update: {
          TableName: this.domainTable,
          Key: { pk: `acct#${payment.account}` },
          UpdateExpression: 'SET balance = balance - :amount',
          ConditionExpression: 'balance >= :amount',
          ExpressionAttributeValues: { ':amount': payment.amount },
        },
      });
    }
    if (behaviour.requireMissingRow)
      scope.stage({
        ConditionCheck: {
          TableName: this.domainTable,
          Key: { pk: `missing#${payment.key}` },
          ConditionExpression: 'attribute_exists(pk)',
        },
      });
    if (behaviour.writeToMissingTable) scope.stage({ Put: { TableName: 'no-such-table', Item: { pk: payment.key } } });
    if (behaviour.claim) scope.claimUnique('order', behaviour.claim);
    if (behaviour.hold) {
      behaviour.hold.entered();
      await behaviour.hold.release;
    }
    if (behaviour.throws) throw new Error('downstream validation failed');
    const result: Record<string, unknown> = { entryId, run };
    if (behaviour.leaseOps) {
      const codeOf = (call: () => Promise<unknown>) =>
        call().then(
          () => 'ok',
          (error: unknown) => (error instanceof IdempotencyError ? error.code : String(error)),
        );
      result.leaseOps = [
        await codeOf(() => scope.beginEffect('charge')),
        await codeOf(() => scope.recordEvidence({ ref: 1 })),
        await codeOf(() => scope.heartbeat()),
      ];
    }
    if (behaviour.blobBytes) result.blob = randomBytes(Math.ceil((behaviour.blobBytes * 3) / 4)).toString('base64');
    return result;
  }
}

type Telemetry = ReturnType<typeof captureTelemetry>;
type Send = (payment: Payment, telemetry: Telemetry) => Promise<Omit<Answer, 'commands' | 'status'>>;

function sender(
  entryPoint: EntryPoint,
  guard: GuardOptions,
  handle: (scope: IdempotencyScope, payment: Payment) => Promise<Record<string, unknown>>,
  behaviour: Behaviour,
): Send {
  if (entryPoint === 'http') {
    const handler = middy(async (event: { body: string }, context: object) => {
      const result = await handle(idempotencyOf(context), JSON.parse(event.body) as Payment);
      return {
        statusCode: behaviour.status ?? 201,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(result),
      };
    }).use(httpIdempotency({ ...guard, operation: 'POST /payments' }));
    return async (payment) => {
      const response = (await handler(httpEvent({ key: payment.key, body: payment }) as never, lambdaContext())) as {
        statusCode: number;
        body: string;
        headers?: Record<string, string>;
      };
      const problem =
        response.headers?.['content-type'] === 'application/problem+json'
          ? (JSON.parse(response.body) as { type: string }).type.split(':').pop()
          : undefined;
      return {
        httpStatus: response.statusCode,
        code: problem,
        replayed: response.headers?.['Idempotent-Replayed'] === 'true',
        result: problem ? undefined : (JSON.parse(response.body) as Record<string, unknown>),
        body: response.body,
      };
    };
  }
  if (entryPoint === 'function') {
    const pay = makeIdempotent(async (payment: Payment, context) => handle(idempotencyOf(context), payment), {
      ...guard,
      operation: 'pay',
      key: (payment) => payment.key,
    });
    return async (payment) => {
      try {
        return { result: await pay(payment, lambdaContext()), code: undefined };
      } catch (error) {
        if (error instanceof IdempotencyError) return { code: error.code };
        throw error;
      }
    };
  }
  const consume = sqsConsumer(
    async (record, context) => void (await handle(idempotencyOf(context), JSON.parse(record.body) as Payment)),
    {
      ...guard,
      consumer: 'payments',
      messageId: fromBodyField('key'),
    },
  );
  return async (payment, telemetry) => {
    const response = await consume({ Records: [sqsRecord(JSON.stringify(payment))] }, lambdaContext());
    const reported = telemetry.lines.find((line) => line.error_code !== undefined || line.reason !== undefined);
    return {
      code:
        response.batchItemFailures.length > 0 ? ((reported?.error_code as string | undefined) ?? 'failed') : undefined,
    };
  };
}

/** Telemetry sinks that keep every log line's fields and ignore metrics. */
function captureTelemetry() {
  const lines: Record<string, unknown>[] = [];
  const keep = (_message: unknown, fields?: unknown) => void lines.push((fields ?? {}) as Record<string, unknown>);
  const logger = { info: keep, error: keep } as unknown as LogSink;
  const metrics = {
    singleMetric: () => ({
      addDimension: () => undefined,
      addMetric: () => undefined,
      clearDefaultDimensions: () => undefined,
    }),
  } as unknown as MetricsSink;
  return { lines, logger, metrics };
}

import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';

import { PaymentsOperation } from '../../src/handlers/service-config.js';
import type { Route } from '../local-api/router.js';
import type { FiredFaults } from './dynamodb-faults.js';
import type { FaultPlanner, HandedFaults } from './fault-schedule.js';
import type { RunRecord } from './run-record.js';
import type { WorkerPool } from './worker-pool.js';
import { requestPk } from '../../src/entries/journal.js';

/** The tenant of every local caller (no authorizer), as the example's handlers scope it. */
const LOCAL_TENANT = '-';

/** What HTTP API answers when the Lambda invocation fails (a crash, an unhandled error). */
const FUNCTION_ERROR: APIGatewayProxyStructuredResultV2 = {
  statusCode: 500,
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ message: 'Internal Server Error' }),
};

/** Options of {@link SoakGateway}. */
export interface SoakGatewayOptions {
  readonly pool: WorkerPool;
  readonly planner: FaultPlanner;
  readonly record: RunRecord;
  /** Whether faults are injected now (the load phase), or not (settling, draining). */
  readonly faultsActive: () => boolean;
}

/**
 * Stands for API Gateway in front of the worker processes: each route invokes a worker with
 * the faults the schedule hands out now, answers a failed invocation 500 as HTTP API does,
 * and keeps the record keys of requests whose effect began but did not commit (the only ones
 * allowed to be left `UNKNOWN`).
 *
 * @example serveRoutes(new SoakGateway({ pool, planner, record, faultsActive }).routes(), 0, log)
 */
export class SoakGateway {
  /**
   * `req#…` keys of requests whose effect began but did not commit, and why: the worker was
   * killed after `beginEffect`, or the commit was refused (a uniqueness claim already held, a
   * staged write's condition) after it. The engine leaves such a record `UNKNOWN`.
   */
  readonly effectNotCommitted = new Map<string, 'killed' | 'commit refused'>();

  constructor(private readonly options: SoakGatewayOptions) {}

  /** The example API's three routes, each invoking a worker. */
  routes(): Route[] {
    return [
      {
        routeKey: 'POST /payments',
        handler: (event) => this.invoke('POST /payments', PaymentsOperation.createPayment, event),
      },
      { routeKey: 'GET /payments/{id}', handler: (event) => this.invoke('GET /payments/{id}', undefined, event) },
      {
        routeKey: 'POST /payments/{id}/refunds',
        handler: (event) => this.invoke('POST /payments/{id}/refunds', PaymentsOperation.createRefund, event),
      },
    ];
  }

  private async invoke(
    routeKey: string,
    operation: string | undefined,
    event: APIGatewayProxyEventV2,
  ): Promise<APIGatewayProxyStructuredResultV2> {
    const { planner, record, pool } = this.options;
    const nowMs = record.now();
    const active = this.options.faultsActive();
    const { plan, handed } = operation
      ? planner.planWrite(nowMs, active)
      : { plan: planner.planRead(nowMs, active), handed: [] as HandedFaults };
    const outcome = await pool.invoke(routeKey, event, plan);
    const key = event.headers['idempotency-key'];
    const pk = operation && key ? requestPk(LOCAL_TENANT, operation, key) : undefined;
    if (outcome.kind === 'killed') {
      if (outcome.effectBegun && pk) this.effectNotCommitted.set(pk, 'killed');
      // A request that died alongside another one's kill point never met the faults it was handed.
      if (!outcome.killedAt) planner.handBack(handed);
      record.functionError(
        `${routeKey}: ${outcome.killedAt ? `worker killed at its kill point (${outcome.killedAt})` : 'worker killed while it held this request beside another'}`,
      );
      return FUNCTION_ERROR;
    }
    this.recordFired(outcome.fired, nowMs);
    if (outcome.kind === 'result' && outcome.effectBegun && pk && isCommitConflict(outcome.result))
      this.effectNotCommitted.set(pk, 'commit refused');
    planner.handBack(handed.filter((fault) => !(fault.kind.startsWith('response-dropped-') && outcome.fired.dropped)));
    if (outcome.kind === 'result') return outcome.result;
    record.functionError(`${routeKey}: ${outcome.message}`);
    return FUNCTION_ERROR;
  }

  /** Stamped when the invocation started: the answer may come seconds after the fault. */
  private recordFired(fired: FiredFaults, startedAtMs: number): void {
    const { record } = this.options;
    record.fault('dynamodb-throttle', fired.throttled, startedAtMs);
    record.fault('dynamodb-latency', fired.delayed, startedAtMs);
    if (fired.dropped)
      record.fault(
        fired.dropped === 'reserve' ? 'response-dropped-after-reserve' : 'response-dropped-after-commit',
        1,
        startedAtMs,
      );
  }
}

/** A 409 `uniqueness-conflict` or `write-conflict` problem: the guard refused the commit. */
function isCommitConflict(result: APIGatewayProxyStructuredResultV2): boolean {
  if (result.statusCode !== 409 || typeof result.body !== 'string') return false;
  return /"type":"[^"]*(uniqueness-conflict|write-conflict)"/.test(result.body);
}

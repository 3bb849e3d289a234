import middy from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { httpIdempotency, type HttpIdempotencyOptions } from '../../index.js';
import type { AnyJournal, ExampleGuardOptions } from '../wiring.js';
import { callerTenant } from '../http-responses.js';
import type { PaymentRail } from '../payment-rail.js';

/** What a guarded route of the example service needs. */
export interface GuardedRouteDependencies {
  readonly journal: AnyJournal;
  readonly paymentsTable: string;
  /** @default a fake rail that honours idempotency keys */
  readonly rail?: PaymentRail;
  /** @default Date.now */
  readonly clock?: () => number;
  /**
   * Extra guard options (lease, telemetry sinks, clock, a migration from Powertools), for local runs and tests.
   * @default none
   */
  readonly guardOptions?: ExampleGuardOptions & Pick<HttpIdempotencyOptions, 'migrateFrom'>;
}

/**
 * A Middy handler guarded by `httpIdempotency` for one of the service's operations, scoped
 * by the caller's tenant. After a crash the handler re-runs: the rail deduplicates on keys
 * derived from the record, and recorded evidence short-cuts what already happened.
 *
 * @example guardedRoute(deps, PaymentsOperation.createPayment).handler(createPayment)
 */
export function guardedRoute(deps: GuardedRouteDependencies, operation: string) {
  return middy<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Error, Context>().use(
    httpIdempotency({
      journal: deps.journal,
      operation,
      tenant: callerTenant,
      recover: async () => ({ outcome: 'rerun' }),
      ...deps.guardOptions,
    }),
  );
}

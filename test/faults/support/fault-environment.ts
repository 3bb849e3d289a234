import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBJournal } from '../../../src/index.js';
import { createJournalTable, createTable, localClient } from '../../support/dynamodb.js';
import { injectFault, type Fault, type FaultHandle, type JournalCall } from './fault-injection.js';
import {
  countOf,
  guardedPayment,
  idempotentPayment,
  paymentEvent,
  type PaymentBehaviour,
  type PaymentTables,
} from './payment-fixture.js';
import { requestPk } from '../../../src/entries/journal.js';

/** Short leases keep the fault suites fast: a retry after `LEASE_MS` meets an expired lease. */
export const LEASE_MS = 800;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits until every lease granted now has expired. */
export const leaseEnds = () => sleep(LEASE_MS + 150);

/** How a faulty container is built. */
export interface FaultyOptions {
  /** The SDK's `maxAttempts`. @default 1 (no SDK retry) */
  readonly maxAttempts?: number;
  /** How many requests meet the fault. @default all */
  readonly times?: number;
  readonly behaviour?: PaymentBehaviour;
}

/** One journal table and the payment's domain tables on DynamoDB Local, shared by the tests of a file. */
export interface FaultEnvironment {
  readonly client: DynamoDBClient;
  readonly journal: DynamoDBJournal;
  readonly tables: PaymentTables;
  /** A container (HTTP `send`, function `call`) whose DynamoDB client meets `fault` on `call`. */
  faulty(
    call: JournalCall,
    fault: Fault,
    options?: FaultyOptions,
  ): { send: ReturnType<typeof guardedPayment>; call: ReturnType<typeof idempotentPayment>; fault: FaultHandle };
  /** A healthy container running the same handler behind the HTTP middleware. */
  healthy(behaviour?: PaymentBehaviour): ReturnType<typeof guardedPayment>;
  /** A healthy container running the same handler behind `makeIdempotent`. */
  healthyFunction(behaviour?: PaymentBehaviour): ReturnType<typeof idempotentPayment>;
  ledger(key: string): Promise<number>;
  rail(key: string): Promise<number>;
  pk(key: string): string;
}

export async function faultEnvironment(): Promise<FaultEnvironment> {
  const client = localClient();
  const [journalTable, ledger, rail] = await Promise.all([
    createJournalTable(client),
    createTable(client, 'ledger'),
    createTable(client, 'rail'),
  ]);
  const tables = { ledger, rail };
  const journal = new DynamoDBJournal({ tableName: journalTable, client });
  return {
    client,
    journal,
    tables,
    faulty(call, fault, options = {}) {
      const faultyClient = localClient({ maxAttempts: options.maxAttempts ?? 1 });
      const handle = injectFault(faultyClient, call, fault, { times: options.times });
      const faultyJournal = new DynamoDBJournal({ tableName: journalTable, client: faultyClient });
      return {
        send: guardedPayment(faultyJournal, faultyClient, tables, options.behaviour, { leaseMs: LEASE_MS }),
        call: idempotentPayment(faultyJournal, faultyClient, tables, options.behaviour, LEASE_MS),
        fault: handle,
      };
    },
    healthy: (behaviour) => guardedPayment(journal, client, tables, behaviour, { leaseMs: LEASE_MS }),
    healthyFunction: (behaviour) => idempotentPayment(journal, client, tables, behaviour, LEASE_MS),
    ledger: (key) => countOf(client, ledger, key),
    rail: (key) => countOf(client, rail, key),
    pk: (key) => requestPk('-', 'POST /payments', key),
  };
}

export { paymentEvent };

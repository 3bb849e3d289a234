import { IdempotencyConfig } from '@aws-lambda-powertools/idempotency';
import { DynamoDBPersistenceLayer } from '@aws-lambda-powertools/idempotency/dynamodb';
import { makeHandlerIdempotent } from '@aws-lambda-powertools/idempotency/middleware';
import middy from '@middy/core';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBJournal, httpIdempotency } from '../../src/index.js';
import { createPayment, type PaymentEffect } from '../fixtures/create-payment.js';
import { benchClient, countCalls, type CallCounter } from './dynamodb.js';
import { lambdaContext } from './events.js';

/** The two libraries under comparison. */
export type LibraryName = 'idemkit' | 'powertools';
/** Both libraries, in the order of the first round. */
export const LIBRARIES: readonly LibraryName[] = ['idemkit', 'powertools'];

/** What one invocation produced: an HTTP answer, or the error the Lambda would have failed with. */
export interface Outcome {
  readonly statusCode?: number;
  readonly error?: string;
}

/** `201`, `409`, ... or the name of the error the invocation failed with. */
export function answerOf(outcome: Outcome): string {
  return outcome.error ?? String(outcome.statusCode);
}

/** One library guarding the payments handler in one warm container: its own client, journal and middleware. */
export interface Contender {
  readonly name: LibraryName;
  readonly calls: CallCounter;
  /** How many times the library hashed the payload, when the setup asked to count (Powertools only). */
  readonly payloadHashes?: () => number;
  invoke(event: APIGatewayProxyEventV2): Promise<Outcome>;
  /** Closes the container's client connections. */
  close(): void;
}

/** Where the journals live and how each container is set up. */
export interface ContenderSetup {
  readonly endpoint: string;
  /** idemkit's journal table (partition key `pk`). */
  readonly idemkitTable: string;
  /** Powertools' table (partition key `id`). */
  readonly powertoolsTable: string;
  /** Keep completed outcomes in the container (idemkit `localCache: { maxItems }`, Powertools `useLocalCache`). */
  readonly localCache?: boolean;
  readonly effect?: PaymentEffect;
  /** Count Powertools' payload hashes (wraps its `getHashedPayload`; left off in timed runs). */
  readonly countHashes?: boolean;
}

/** Both libraries' local caches hold this many outcomes (Powertools' default size). */
export const LOCAL_CACHE_ITEMS = 1_000;
/** Both libraries replay an outcome for a day. */
export const TTL_SECONDS = 86_400;

/**
 * The Powertools idempotency setup every scenario measures (README "Setup"): key from the
 * `Idempotency-Key` header, payload validated on the body, a day's expiry, and its local
 * cache only when asked.
 */
export function powertoolsIdempotency(
  client: DynamoDBClient,
  tableName: string,
  localCache = false,
): { persistenceStore: DynamoDBPersistenceLayer; middleware: ReturnType<typeof makeHandlerIdempotent> } {
  const persistenceStore = new DynamoDBPersistenceLayer({ tableName, awsSdkV3Client: client });
  const config = new IdempotencyConfig({
    eventKeyJmesPath: 'headers."idempotency-key"',
    payloadValidationJmesPath: 'body',
    throwOnNoIdempotencyKey: true,
    expiresAfterSeconds: TTL_SECONDS,
    ...(localCache ? { useLocalCache: true, maxLocalCacheSize: LOCAL_CACHE_ITEMS } : {}),
  });
  return {
    persistenceStore,
    middleware: makeHandlerIdempotent({ persistenceStore, config, keyPrefix: 'create-payment' }),
  };
}

/** Closes every container given. */
export function closeAll(containers: Iterable<{ close(): void }>): void {
  for (const container of containers) container.close();
}

/** A warm container running `name` in front of the payments handler. */
export function buildContender(name: LibraryName, setup: ContenderSetup): Contender {
  return name === 'idemkit' ? idemkitContender(setup) : powertoolsContender(setup);
}

function idemkitContender(setup: ContenderSetup): Contender {
  const client = benchClient(setup.endpoint);
  const calls = countCalls(client);
  const journal = new DynamoDBJournal({ tableName: setup.idemkitTable, client });
  const handler = middy(createPayment(setup.effect)).use(
    httpIdempotency({
      journal,
      ttlSeconds: TTL_SECONDS,
      ...(setup.localCache ? { localCache: { maxItems: LOCAL_CACHE_ITEMS } } : {}),
    }),
  );
  return {
    name: 'idemkit',
    calls,
    invoke: (event) => run(() => handler(event, lambdaContext())),
    close: () => client.destroy(),
  };
}

function powertoolsContender(setup: ContenderSetup): Contender {
  const client = benchClient(setup.endpoint);
  const calls = countCalls(client);
  const { persistenceStore, middleware } = powertoolsIdempotency(client, setup.powertoolsTable, setup.localCache);
  const handler = middy(createPayment(setup.effect)).use(middleware);
  const payloadHashes = setup.countHashes ? countPayloadHashes(persistenceStore) : undefined;
  return {
    name: 'powertools',
    calls,
    payloadHashes,
    invoke: (event) => run(() => handler(event, lambdaContext())),
    close: () => client.destroy(),
  };
}

function countPayloadHashes(persistenceStore: DynamoDBPersistenceLayer): () => number {
  // The method is private in the typings but an ordinary prototype method at run time.
  const store = persistenceStore as unknown as { getHashedPayload(data: unknown): string };
  const original = store.getHashedPayload.bind(persistenceStore);
  let count = 0;
  store.getHashedPayload = (data) => {
    count++;
    return original(data);
  };
  return () => count;
}

async function run(invocation: () => Promise<unknown>): Promise<Outcome> {
  try {
    const response = (await invocation()) as { statusCode?: number } | undefined;
    return { statusCode: response?.statusCode };
  } catch (error) {
    return { error: (error as Error).name };
  }
}

import { IdempotencyConfig } from '@aws-lambda-powertools/idempotency';
import { DynamoDBPersistenceLayer } from '@aws-lambda-powertools/idempotency/dynamodb';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { performance } from 'node:perf_hooks';
import { defaultHttpFingerprint, fingerprintOf } from '../../src/index.js';
import { benchClient } from '../harness/dynamodb.js';
import { jsonBodyOfSize, newKey, paymentEvent } from '../harness/events.js';
import { alternate } from '../harness/rounds.js';
import { median } from '../harness/stats.js';

/** One body size and how much to sample it. */
export interface FingerprintSize {
  readonly label: string;
  readonly bytes: number;
  readonly rounds: number;
  /** Operations timed together in one round (small bodies are too fast to time one by one). */
  readonly batch: number;
}

/** The hashing paths measured, each on the same event. */
export const FINGERPRINT_PATHS = {
  idemkitMiddleware:
    "idemkit, the middleware's path: well-formed text check, JSON.parse, precision and duplicate-key checks, RFC 8785 canonical JSON, SHA-256",
  idemkitParseAndHash: 'idemkit, JSON.parse + fingerprintOf (canonical JSON + SHA-256) only',
  powertoolsBody:
    "Powertools getHashedPayload with payloadValidationJmesPath 'body': JMESPath search, deepSort, JSON.stringify of the body string, md5",
  powertoolsJsonBody:
    "Powertools getHashedPayload with 'powertools_json(body)' (compares by value like idemkit; not the configured setup)",
} as const;
/** One of {@link FINGERPRINT_PATHS}. */
export type FingerprintPath = keyof typeof FINGERPRINT_PATHS;

/** Median milliseconds per operation of every path, per body size. */
export interface FingerprintResult {
  readonly sizes: ReadonlyArray<
    FingerprintSize & { readonly actualBytes: number; readonly medianMsPerOp: Record<FingerprintPath, number> }
  >;
}

/** A configured Powertools persistence layer whose (private) payload hash can be called directly. */
function powertoolsHasher(
  endpoint: string,
  payloadValidationJmesPath: string,
): (event: APIGatewayProxyEventV2) => string {
  // The layer needs a client but this path never sends a request.
  const layer = new DynamoDBPersistenceLayer({ tableName: 'unused-table', awsSdkV3Client: benchClient(endpoint) });
  layer.configure({
    config: new IdempotencyConfig({ eventKeyJmesPath: 'headers."idempotency-key"', payloadValidationJmesPath }),
  });
  const hashing = layer as unknown as { getHashedPayload(data: unknown): string };
  return (event) => hashing.getHashedPayload(event);
}

/**
 * Cost of turning a request body into the value stored for payload validation, per operation.
 * No DynamoDB call is made; the paths alternate round by round.
 */
export async function measureFingerprints(
  endpoint: string,
  sizes: readonly FingerprintSize[],
): Promise<FingerprintResult> {
  const hashers: Record<FingerprintPath, (event: APIGatewayProxyEventV2) => unknown> = {
    idemkitMiddleware: (event) => fingerprintOf(defaultHttpFingerprint(event)),
    idemkitParseAndHash: (event) => fingerprintOf(JSON.parse(event.body ?? 'null')),
    powertoolsBody: powertoolsHasher(endpoint, 'body'),
    powertoolsJsonBody: powertoolsHasher(endpoint, 'powertools_json(body)'),
  };
  const paths = Object.keys(FINGERPRINT_PATHS) as FingerprintPath[];
  const results: FingerprintResult['sizes'][number][] = [];
  let sink = 0;
  for (const size of sizes) {
    const key = newKey();
    const event = paymentEvent(key, jsonBodyOfSize(size.bytes));
    const perOp = Object.fromEntries(paths.map((path) => [path, [] as number[]])) as Record<FingerprintPath, number[]>;
    for (const path of paths) sink += String(hashers[path](event)).length;
    await alternate(paths, size.rounds, async (path) => {
      const hash = hashers[path];
      const started = performance.now();
      for (let i = 0; i < size.batch; i++) sink += String(hash(event)).length;
      perOp[path].push((performance.now() - started) / size.batch);
    });
    results.push({
      ...size,
      actualBytes: Buffer.byteLength(event.body ?? ''),
      medianMsPerOp: Object.fromEntries(paths.map((path) => [path, median(perOp[path])])) as Record<
        FingerprintPath,
        number
      >,
    });
  }
  if (sink === 0) throw new Error('no hash was computed');
  return { sizes: results };
}

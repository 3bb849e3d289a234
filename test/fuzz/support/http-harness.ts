import middy from '@middy/core';
import { httpIdempotency, idempotencyOf, MemoryJournal } from '../../../src/index.js';
import { type Journal } from '../../../src/entries/journal.js';

/** What the handler answers; `body` may be any string, lone surrogates included. */
export interface PlannedResponse {
  readonly statusCode: number;
  readonly body: string;
  readonly isBase64Encoded?: boolean;
}

/** A generated API Gateway HTTP API (v2) request. */
export interface GeneratedRequest {
  readonly method: string;
  readonly keyHeader?: { readonly name: string; readonly value: string };
  readonly query?: Record<string, string>;
  readonly body?: string;
  readonly isBase64Encoded?: boolean;
}

export type Answer = { statusCode: number; headers?: Record<string, string>; body?: string; isBase64Encoded?: boolean };

/** The documented problem types the guard answers to a single caller (nothing runs concurrently here). */
export const SEQUENTIAL_PROBLEMS: Record<string, number> = {
  'urn:idemkit:problem:idempotency-key-missing': 400,
  'urn:idemkit:problem:idempotency-key-invalid': 400,
  'urn:idemkit:problem:invalid-request': 400,
  'urn:idemkit:problem:idempotency-key-reused': 422,
};

/** The v2 event of a generated request; every call builds a fresh object, as Lambda delivers one. */
export function v2Event(request: GeneratedRequest): unknown {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (request.keyHeader) headers[request.keyHeader.name] = request.keyHeader.value;
  return {
    version: '2.0',
    routeKey: `${request.method} /payments`,
    rawPath: '/payments',
    rawQueryString: '',
    headers,
    queryStringParameters: request.query,
    requestContext: {
      http: {
        method: request.method,
        path: '/payments',
        protocol: 'HTTP/1.1',
        sourceIp: '127.0.0.1',
        userAgent: 'fuzz',
      },
      requestId: 'fuzz',
      routeKey: `${request.method} /payments`,
    },
    body: request.body,
    isBase64Encoded: request.isBase64Encoded ?? false,
  };
}

/**
 * A guarded handler that counts its runs, notes whether each ran under a guard, and answers
 * `respond(run)` (by default a 201 naming the run).
 */
export function guardedCounter(
  journal: Journal = new MemoryJournal(),
  respond: (run: number) => PlannedResponse = (run) => ({ statusCode: 201, body: JSON.stringify({ run }) }),
) {
  const runs: Array<{ guarded: boolean }> = [];
  const handler = middy(async (_event: unknown, context: object) => {
    let guarded = true;
    try {
      idempotencyOf(context);
    } catch {
      guarded = false;
    }
    runs.push({ guarded });
    const planned = respond(runs.length);
    return {
      statusCode: planned.statusCode,
      headers: { 'content-type': 'application/json', location: `/payments/${runs.length}`, 'x-not-replayed': 'yes' },
      body: planned.body,
      isBase64Encoded: planned.isBase64Encoded,
    };
  }).use(httpIdempotency({ journal }));
  const send = (request: GeneratedRequest) =>
    handler(v2Event(request) as never, { awsRequestId: `fuzz-${runs.length}` } as never) as Promise<Answer>;
  return { send, runs };
}

/** The problem `type` of an answer, or undefined when it is not an `application/problem+json` answer. */
export function problemTypeOf(answer: Answer): string | undefined {
  if (answer.headers?.['content-type'] !== 'application/problem+json') return undefined;
  return (JSON.parse(answer.body ?? '{}') as { type?: string }).type;
}

/** True when `replay` is `first` again, byte for byte, marked as a replay. */
export function isReplayOf(replay: Answer, first: Answer): boolean {
  return (
    replay.headers?.['Idempotent-Replayed'] === 'true' &&
    replay.statusCode === first.statusCode &&
    replay.body === first.body &&
    (replay.isBase64Encoded ?? false) === (first.isBase64Encoded ?? false) &&
    replay.headers?.['content-type'] === first.headers?.['content-type'] &&
    replay.headers?.location === first.headers?.location
  );
}

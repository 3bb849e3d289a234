import type { EventFlavor } from './http-event.js';
import type { HttpResponse } from './http-response.js';

/** Default prefix of problem `type` URIs. */
export const DEFAULT_PROBLEM_TYPE_PREFIX = 'urn:idemkit:problem:';

/** Titles of the documented problem types, by the `type` name that ends their URI. */
export const PROBLEM_TITLES: Record<string, string> = {
  'idempotency-key-missing': 'Idempotency-Key header is required',
  'idempotency-key-invalid': 'Idempotency-Key header is invalid',
  'idempotency-key-reused': 'Idempotency-Key was used with a different request',
  'request-in-progress': 'A request with this Idempotency-Key is in progress',
  'needs-review': 'The outcome of an earlier attempt needs review',
  'uniqueness-conflict': 'A uniqueness rule is already claimed',
  'write-conflict': 'A write conflicted with the current state',
  'journal-unavailable': 'The idempotency journal is unavailable',
  'invalid-request': 'The request cannot be processed safely',
  'response-too-large': 'The operation completed but its response was too large to store',
  'response-not-serializable': 'The operation completed but its response cannot be represented as JSON',
};

/** Builds an RFC 9457 `application/problem+json` response. */
export function problemResponse(
  flavor: EventFlavor,
  status: number,
  typeName: string,
  detail: string,
  options: { typePrefix: string; retryAfterSeconds?: number },
): HttpResponse {
  const headers: Record<string, string> = { 'content-type': 'application/problem+json' };
  if (options.retryAfterSeconds !== undefined) headers['retry-after'] = String(options.retryAfterSeconds);
  const body = JSON.stringify({ type: `${options.typePrefix}${typeName}`, title: PROBLEM_TITLES[typeName] ?? typeName, status, detail });
  if (flavor === 'alb') return { statusCode: status, statusDescription: `${status}`, headers, body, isBase64Encoded: false };
  if (flavor === 'alb-multi-value') {
    const multiValueHeaders = Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, [value]]));
    return { statusCode: status, statusDescription: `${status}`, multiValueHeaders, body, isBase64Encoded: false };
  }
  return { statusCode: status, headers, body };
}

import { ResponseNotSerializableError } from '../core/index.js';

/** The HTTP response a Lambda handler returns to API Gateway, a Function URL or an ALB. */
export interface HttpResponse {
  statusCode: number;
  statusDescription?: string;
  headers?: Record<string, string | number | boolean>;
  multiValueHeaders?: Record<string, Array<string | number | boolean>>;
  body?: string;
  isBase64Encoded?: boolean;
  cookies?: string[];
}

/** Headers always stored with a response besides the configured ones. */
export const ALWAYS_REPLAYED_HEADERS = ['content-type', 'location'] as const;
/** Headers never stored, whatever the configuration says. */
const NEVER_REPLAYED_HEADERS = new Set(['set-cookie']);
/** Header marking an answer as a replay of a stored outcome. */
export const REPLAYED_HEADER = 'Idempotent-Replayed';

/**
 * Turns whatever the handler returned into an HTTP response. HTTP APIs accept a bare value
 * and answer it as 200 JSON; storing that normalized form makes the replay byte-identical.
 *
 * @throws ResponseNotSerializableError for a bare value JSON cannot carry
 */
export function normalizeResponse(result: unknown): HttpResponse {
  if (result && typeof result === 'object' && typeof (result as HttpResponse).statusCode === 'number')
    return result as HttpResponse;
  if (typeof result === 'string')
    return { statusCode: 200, headers: { 'content-type': 'application/json' }, body: result };
  return {
    statusCode: 200,
    headers: { 'content-type': 'application/json' },
    body: result === undefined ? '' : bodyJson(result),
  };
}

function bodyJson(result: unknown): string {
  try {
    return JSON.stringify(result);
  } catch (error) {
    throw new ResponseNotSerializableError(
      `The handler's result cannot be answered as JSON: ${(error as Error).message}`,
      { cause: error },
    );
  }
}

/** Whether an outcome is stored and replayed (2xx–4xx except 408 and 429) or released. */
export function isStorableStatus(statusCode: number): boolean {
  return statusCode < 500 && statusCode !== 408 && statusCode !== 429;
}

/** The part of a response that is stored: status, body and allow-listed headers. */
export function storedForm(response: HttpResponse, replayHeaders: ReadonlySet<string>): HttpResponse {
  const stored: HttpResponse = { statusCode: response.statusCode, body: response.body ?? '' };
  if (response.statusDescription !== undefined) stored.statusDescription = response.statusDescription;
  if (response.isBase64Encoded) stored.isBase64Encoded = true;
  if (response.headers) stored.headers = kept(response.headers, replayHeaders);
  if (response.multiValueHeaders) stored.multiValueHeaders = kept(response.multiValueHeaders, replayHeaders);
  return stored;
}

/** The allow-listed headers of `headers` (a plain loop: this runs on every stored response). */
function kept<T>(headers: Record<string, T>, replayHeaders: ReadonlySet<string>): Record<string, T> {
  const out: Record<string, T> = {};
  for (const name in headers) {
    const lower = name.toLowerCase();
    if (replayHeaders.has(lower) && !NEVER_REPLAYED_HEADERS.has(lower)) out[name] = headers[name];
  }
  return out;
}

/** The answer to a replay: the stored response plus `Idempotent-Replayed: true`. */
export function replayResponse(stored: HttpResponse): HttpResponse {
  // A response in multi-value form (ALB with multi-value headers) carries the marker the same way.
  if (stored.multiValueHeaders && !stored.headers)
    return { ...stored, multiValueHeaders: { ...stored.multiValueHeaders, [REPLAYED_HEADER]: ['true'] } };
  const replay: HttpResponse = { ...stored, headers: { ...(stored.headers ?? {}), [REPLAYED_HEADER]: 'true' } };
  if (stored.multiValueHeaders) replay.multiValueHeaders = { ...stored.multiValueHeaders, [REPLAYED_HEADER]: ['true'] };
  return replay;
}

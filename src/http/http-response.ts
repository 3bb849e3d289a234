import {
  assertKnownOptions,
  readNumber,
  RecordUnreadableError,
  ResponseNotSerializableError,
  ERROR_CODES,
  IdempotencyError,
  InProgressError,
  JournalThrottledError,
  JournalUnavailableError,
  type ErrorCode,
} from '../core/index.js';
import type { EventFlavor } from './http-event.js';

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

/**
 * Refuses a stored outcome that is no HTTP response (no status code, a body that is not a
 * string, headers that are not a map): a record holding one cannot be replayed faithfully.
 *
 * @throws RecordUnreadableError
 */
export function assertHttpResponse(stored: unknown, pk: string): void {
  const response = stored as Partial<HttpResponse> | null;
  const isMap = (value: unknown) => value === undefined || (typeof value === 'object' && value !== null);
  const problem =
    typeof response !== 'object' || response === null
      ? 'is not an HTTP response'
      : !Number.isInteger(response.statusCode) || response.statusCode! < 100 || response.statusCode! > 599
        ? 'has no HTTP status code'
        : response.body !== undefined && typeof response.body !== 'string'
          ? 'has a body that is not a string'
          : !isMap(response.headers) || !isMap(response.multiValueHeaders)
            ? 'has headers that are not a map'
            : undefined;
  if (problem) throw new RecordUnreadableError(pk, `its stored response ${problem}`);
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

/** Default prefix of problem `type` URIs. */
export const DEFAULT_PROBLEM_TYPE_PREFIX = 'urn:idemkit:problem:';

/**
 * Status codes of the guard's own answers. Answers a retry cannot change (`mismatch`,
 * `writeConflict`, `uniqueConflict`, `needsReview`) carry no `Retry-After` whatever their
 * status; `inProgress`, `journalUnavailable` and `journalThrottled` carry one.
 */
export interface StatusCodes {
  /** @default 400 */
  readonly missingKey?: number;
  /** @default 400 */
  readonly invalidKey?: number;
  /** @default 422 */
  readonly mismatch?: number;
  /** @default 409 */
  readonly inProgress?: number;
  /** @default 409 */
  readonly needsReview?: number;
  /** @default 409 */
  readonly uniqueConflict?: number;
  /** @default 409 */
  readonly writeConflict?: number;
  /** @default 503 */
  readonly journalUnavailable?: number;
  /**
   * A throttled journal call (`journal-throttled`): the handler did not run, and the caller comes back after a
   * jittered `Retry-After` of 1–3 s.
   * @default 429
   */
  readonly journalThrottled?: number;
  /** @default 500 */
  readonly recordUnreadable?: number;
}

/** Which error code each configurable status code answers. */
const CONFIGURABLE: Readonly<Record<keyof StatusCodes, ErrorCode>> = Object.freeze({
  missingKey: 'idempotency-key-missing',
  invalidKey: 'idempotency-key-invalid',
  mismatch: 'idempotency-key-reused',
  inProgress: 'request-in-progress',
  needsReview: 'needs-review',
  uniqueConflict: 'uniqueness-conflict',
  writeConflict: 'write-conflict',
  journalUnavailable: 'journal-unavailable',
  journalThrottled: 'journal-throttled',
  recordUnreadable: 'record-unreadable',
});

/** Error codes the guard answers as problems; any other error travels on to the other middlewares. */
const ANSWERED: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  ...Object.values(CONFIGURABLE),
  'invalid-request',
  'response-too-large',
  'response-not-serializable',
  'staged-write-failed',
  'too-many-writes',
  'outbox-too-large',
]);

/**
 * Codes of errors the guard's own scope raises inside the handler (a lease call meeting the
 * journal down, a claim `holdUnique` finds taken, a staged item DynamoDB cannot hold): this request's answer even when the handler
 * lets them through. Other guard errors from inside the handler (a nested guard's mismatch, say)
 * are not.
 */
export const SCOPE_ERROR_CODES: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  'journal-unavailable',
  'journal-throttled',
  'uniqueness-conflict',
  'staged-write-failed',
  'too-many-writes',
  'record-unreadable',
]);

/** The guard's problem answers: RFC 9457 `application/problem+json`, in the event's own response flavor. */
export class ProblemAnswers {
  private readonly statusByCode: ReadonlyMap<ErrorCode, number>;

  /** @throws InvalidOptionsError for a `statusCodes` name that is not configurable, or a value that is no HTTP status */
  constructor(
    owner: string,
    statusCodes: StatusCodes | undefined,
    private readonly typePrefix: string,
    private readonly retryAfterSeconds: number,
  ) {
    const configurable = Object.keys(CONFIGURABLE) as Array<keyof StatusCodes>;
    if (statusCodes !== undefined) assertKnownOptions(`${owner}: option 'statusCodes'`, statusCodes, configurable);
    const overrides = configurable.flatMap((name) => {
      const status = readNumber(owner, `statusCodes.${name}`, statusCodes?.[name], undefined, {
        min: 100,
        max: 599,
        integer: true,
      });
      return status === undefined ? [] : [[CONFIGURABLE[name], status] as const];
    });
    this.statusByCode = new Map(overrides);
  }

  /**
   * The documented answer for a guard error, or undefined for an error the guard does not
   * own (it then travels on to the other middlewares). `instance` is the request id the
   * attempt's log line carries, so support can find the line from the answer.
   */
  answerFor(error: unknown, flavor: EventFlavor, instance?: string): HttpResponse | undefined {
    if (!(error instanceof IdempotencyError) || !ANSWERED.has(error.code)) return undefined;
    const status = this.statusByCode.get(error.code) ?? ERROR_CODES[error.code].status;
    const retryAfterSeconds =
      error instanceof InProgressError || error instanceof JournalThrottledError
        ? error.retryAfterSeconds
        : error instanceof JournalUnavailableError
          ? this.retryAfterSeconds
          : undefined;
    const entry: { readonly title: string; readonly detail?: string } = ERROR_CODES[error.code];
    return problemResponse(flavor, status, error.code, entry.detail ?? error.message, {
      typePrefix: this.typePrefix,
      retryAfterSeconds,
      instance,
    });
  }
}

/**
 * Builds an RFC 9457 `application/problem+json` response. `detail` is words for the caller
 * only (see `ERROR_CODES`); `instance`, when known, is the request id of the attempt's log line.
 */
function problemResponse(
  flavor: EventFlavor,
  status: number,
  code: ErrorCode,
  detail: string,
  options: { typePrefix: string; retryAfterSeconds?: number; instance?: string },
): HttpResponse {
  const headers: Record<string, string> = { 'content-type': 'application/problem+json' };
  if (options.retryAfterSeconds !== undefined) headers['retry-after'] = String(options.retryAfterSeconds);
  const problem = { type: `${options.typePrefix}${code}`, title: ERROR_CODES[code].title, status, detail };
  const body = JSON.stringify(options.instance === undefined ? problem : { ...problem, instance: options.instance });
  if (flavor === 'alb')
    return { statusCode: status, statusDescription: `${status}`, headers, body, isBase64Encoded: false };
  if (flavor === 'alb-multi-value') {
    const multiValueHeaders = Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, [value]]));
    return { statusCode: status, statusDescription: `${status}`, multiValueHeaders, body, isBase64Encoded: false };
  }
  return { statusCode: status, headers, body };
}

import {
  ERROR_CODES,
  IdempotencyError,
  InProgressError,
  JournalUnavailableError,
  type ErrorCode,
} from '../core/index.js';
import type { EventFlavor } from './http-event.js';
import type { HttpResponse } from './http-response.js';

/** Default prefix of problem `type` URIs. */
export const DEFAULT_PROBLEM_TYPE_PREFIX = 'urn:idemkit:problem:';

/** Status codes of the guard's own answers. */
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
}

/** Which error code each configurable status code answers. */
const CONFIGURABLE: Readonly<Record<keyof StatusCodes, ErrorCode>> = Object.freeze({
  missingKey: 'idempotency-key-missing',
  invalidKey: 'idempotency-key-invalid',
  mismatch: 'idempotency-key-reused',
  inProgress: 'request-in-progress',
  needsReview: 'needs-review',
});

/** Error codes the guard answers as problems; any other error travels on to the other middlewares. */
const ANSWERED: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  ...Object.values(CONFIGURABLE),
  'invalid-request',
  'uniqueness-conflict',
  'write-conflict',
  'journal-unavailable',
  'response-too-large',
  'response-not-serializable',
]);

/** The guard's problem answers: RFC 9457 `application/problem+json`, in the event's own response flavor. */
export class ProblemAnswers {
  private readonly statusByCode: ReadonlyMap<ErrorCode, number>;

  constructor(
    statusCodes: StatusCodes | undefined,
    private readonly typePrefix: string,
    private readonly retryAfterSeconds: number,
  ) {
    const overrides = Object.entries(statusCodes ?? {}).map(
      ([name, status]) => [CONFIGURABLE[name as keyof StatusCodes], status] as const,
    );
    this.statusByCode = new Map(overrides);
  }

  /**
   * The documented answer for a guard error, or undefined for an error the guard does not
   * own (it then travels on to the other middlewares).
   */
  answerFor(error: unknown, flavor: EventFlavor): HttpResponse | undefined {
    if (!(error instanceof IdempotencyError) || !ANSWERED.has(error.code)) return undefined;
    const status = this.statusByCode.get(error.code) ?? ERROR_CODES[error.code].status;
    const retryAfterSeconds =
      error instanceof InProgressError
        ? error.retryAfterSeconds
        : error instanceof JournalUnavailableError
          ? this.retryAfterSeconds
          : undefined;
    return problemResponse(flavor, status, error.code, error.message, {
      typePrefix: this.typePrefix,
      retryAfterSeconds,
    });
  }
}

/** Builds an RFC 9457 `application/problem+json` response. */
export function problemResponse(
  flavor: EventFlavor,
  status: number,
  code: ErrorCode,
  detail: string,
  options: { typePrefix: string; retryAfterSeconds?: number },
): HttpResponse {
  const headers: Record<string, string> = { 'content-type': 'application/problem+json' };
  if (options.retryAfterSeconds !== undefined) headers['retry-after'] = String(options.retryAfterSeconds);
  const body = JSON.stringify({ type: `${options.typePrefix}${code}`, title: ERROR_CODES[code].title, status, detail });
  if (flavor === 'alb')
    return { statusCode: status, statusDescription: `${status}`, headers, body, isBase64Encoded: false };
  if (flavor === 'alb-multi-value') {
    const multiValueHeaders = Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, [value]]));
    return { statusCode: status, statusDescription: `${status}`, multiValueHeaders, body, isBase64Encoded: false };
  }
  return { statusCode: status, headers, body };
}

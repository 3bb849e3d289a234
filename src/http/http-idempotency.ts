import {
  constructGivenName,
  IdempotencyError,
  InvalidOptionsError,
  readFunction,
  readBoolean,
  readString,
  NO_TENANT,
  scopePart,
} from '../core/index.js';
import {
  fingerprintOf,
  IdempotencyEngine,
  resolveGuardOptions,
  type Attempt,
  type GuardOptions,
  type RunResult,
} from '../engine/index.js';
import { legacyLookupFor, type MigrateFromOptions } from '../migration/index.js';
import { MetricDimension, Telemetry } from '../telemetry/index.js';
import { defaultTenant, viewHttpEvent, type EventFlavor, type HttpRequestView, readKeyHeader } from './http-event.js';
import {
  ALWAYS_REPLAYED_HEADERS,
  assertHttpResponse,
  isStorableStatus,
  SCOPE_ERROR_CODES,
  normalizeResponse,
  replayResponse,
  storedForm,
  type HttpResponse,
  DEFAULT_PROBLEM_TYPE_PREFIX,
  ProblemAnswers,
  type StatusCodes,
} from './http-response.js';
import type { HttpIdempotencyMiddleware, MiddyRequest } from './middy-middleware.js';
import { defaultRequestFingerprint } from './request-fingerprint.js';

/** Options of {@link httpIdempotency}. */
export interface HttpIdempotencyOptions extends GuardOptions {
  /**
   * Operation part of the scope.
   * @default `IDEMKIT_OPERATION` (`IdemkitFunction`'s `operationName`), else `${method} ${route}` from the event
   */
  readonly operation?: string | ((event: any) => string);
  /**
   * Tenant part of the scope, from the authorizer, never from a client header. A number is its
   * decimal string; an empty string or any other value is refused (400 `invalid-request`).
   * @default v2 JWT claims.sub; v2 Lambda authorizer lambda.tenantId ?? principalId; IAM userArn; v1
   *   authorizer.principalId ?? claims.sub; '-' if none
   */
  readonly tenant?: (event: any) => string;
  /**
   * Whether a request without a key is refused (400). When false, such a request runs unguarded.
   * @default true for POST and PATCH, false otherwise
   */
  readonly required?: boolean;
  /**
   * What the fingerprint covers.
   * @default method, concrete path, query string and JSON body (raw bytes if not JSON)
   */
  readonly fingerprint?: (event: any) => unknown;
  /** Status codes of the guard's own answers. */
  readonly statusCodes?: StatusCodes;
  /**
   * Response headers stored and replayed besides `content-type` and `location` (never `set-cookie`).
   * @default []
   */
  readonly replayHeaders?: readonly string[];
  /**
   * Request header carrying the key.
   * @default 'Idempotency-Key'
   */
  readonly headerName?: string;
  /**
   * Prefix of problem `type` URIs.
   * @default 'urn:idemkit:problem:'
   */
  readonly problemTypePrefix?: string;
  /**
   * The idempotency library being replaced: while its records live, a new key first reads the
   * record it holds for the same raw event, and a completed or running request is answered, not re-run.
   * @default undefined (no migration)
   */
  readonly migrateFrom?: MigrateFromOptions;
}

/** Defaults of {@link HttpIdempotencyOptions} besides the shared guard defaults. */
export const DEFAULT_HTTP_IDEMPOTENCY_OPTIONS = Object.freeze({
  headerName: 'Idempotency-Key',
  problemTypePrefix: DEFAULT_PROBLEM_TYPE_PREFIX,
  replayHeaders: Object.freeze([] as string[]),
});

const FACTORY = 'httpIdempotency';
const OPTION_NAMES = [
  'operation',
  'tenant',
  'required',
  'fingerprint',
  'statusCodes',
  'replayHeaders',
  'headerName',
  'problemTypePrefix',
  'migrateFrom',
];
/** Where the running attempt waits between `before` and `after`/`onError` (Middy's per-request state). */
const STATE = 'idemkit';

interface AttemptState {
  readonly flavor: EventFlavor;
  readonly attempt: Attempt;
}

/**
 * Middy middleware that makes an HTTP Lambda handler safe to retry: one execution per
 * idempotency key, the first outcome replayed, key reuse with other parameters refused.
 * Works for API Gateway REST (v1), HTTP APIs (v2), Function URLs and ALB.
 *
 * @example
 * export const handler = middy(createPayment).use(
 *   httpIdempotency({ journal: new DynamoDBJournal({ tableName: process.env.IDEMKIT_TABLE_NAME! }) }),
 * );
 */
export function httpIdempotency(options: HttpIdempotencyOptions): HttpIdempotencyMiddleware {
  const settings = resolveGuardOptions(FACTORY, options, OPTION_NAMES);
  const tenantOf = readFunction(FACTORY, 'tenant', options.tenant, undefined);
  const fingerprintInput = readFunction(FACTORY, 'fingerprint', options.fingerprint, undefined);
  const operationOption = options.operation ?? constructGivenName('operation');
  if (options.operation !== undefined && typeof options.operation !== 'function')
    readString(FACTORY, 'operation', options.operation, undefined);
  if (
    options.replayHeaders !== undefined &&
    !(Array.isArray(options.replayHeaders) && options.replayHeaders.every((h) => typeof h === 'string'))
  ) {
    throw new InvalidOptionsError(`${FACTORY}: option 'replayHeaders' must be an array of header names`);
  }
  const required = readBoolean(FACTORY, 'required', options.required, undefined);
  const headerName = readString(FACTORY, 'headerName', options.headerName, DEFAULT_HTTP_IDEMPOTENCY_OPTIONS.headerName);
  const typePrefix = readString(
    FACTORY,
    'problemTypePrefix',
    options.problemTypePrefix,
    DEFAULT_HTTP_IDEMPOTENCY_OPTIONS.problemTypePrefix,
  );
  const replayHeaders = new Set([
    ...ALWAYS_REPLAYED_HEADERS,
    ...(options.replayHeaders ?? DEFAULT_HTTP_IDEMPOTENCY_OPTIONS.replayHeaders).map((h) => h.toLowerCase()),
  ]);
  // A response handed back by a `recover` hook or the previous library is stored like a handler's: allow-listed
  // headers only.
  const storedFormOf = (response: unknown) => storedForm(normalizeResponse(response), replayHeaders);
  const legacyLookup = legacyLookupFor(FACTORY, options.migrateFrom, settings);
  const engine = new IdempotencyEngine(
    {
      ...settings,
      storedFormOf,
      legacyLookup,
      assertReplayable: assertHttpResponse,
      // 5xx, 408 and 429 are not stored: a retry runs again. The first caller gets the response as the handler shaped it.
      outcomeOf: (result) => {
        const response = normalizeResponse(result);
        const store = isStorableStatus(response.statusCode);
        return { store, response: store ? storedForm(response, replayHeaders) : undefined, answer: response };
      },
    },
    new Telemetry(MetricDimension.operation, options),
  );
  const answers = new ProblemAnswers(FACTORY, options.statusCodes, typePrefix, settings.retryAfterSeconds);

  /** The HTTP answer of a concluded attempt; undefined when the handler's own error travels on. */
  function answerOf(result: RunResult, flavor: EventFlavor, attempt: Attempt): HttpResponse | undefined {
    if (result.kind === 'superseded') return replayResponse(result.response as HttpResponse);
    if (result.kind === 'failed') return answeredScopeError(result.error, flavor, attempt);
    return result.response as HttpResponse;
  }

  /**
   * A guard error the handler let through from its scope (a claim taken, a staged write refused, the journal down) is
   * answered like the guard's own; any other error of the handler's, a nested guard's included, travels on.
   */
  function answeredScopeError(error: unknown, flavor: EventFlavor, attempt: Attempt): HttpResponse | undefined {
    const raisedByScope = error instanceof IdempotencyError && SCOPE_ERROR_CODES.has(error.code);
    return raisedByScope ? answers.answerFor(error, flavor, attempt.requestId) : undefined;
  }

  function finish(attempt: Attempt, response: HttpResponse | undefined, responseCode = response?.statusCode): void {
    const location = response?.headers?.location ?? response?.headers?.Location;
    attempt.finish({ responseCode, resourceId: location === undefined ? undefined : String(location) });
  }

  /** The operation and tenant of a request, or why they cannot be read (answered once the key passed its checks). */
  function scopeOf(
    view: HttpRequestView,
    event: unknown,
  ): { operation: string; tenant?: string; scopeError?: unknown } {
    try {
      const named = typeof operationOption === 'function' ? operationOption(event) : operationOption;
      const operation = scopePart(named ?? view.route, "the 'operation' option") ?? view.route;
      const tenant = tenantOf ? (scopePart(tenantOf(event), "the 'tenant' option") ?? NO_TENANT) : defaultTenant(view);
      return { operation, tenant };
    } catch (scopeError) {
      return { operation: 'unknown', scopeError };
    }
  }

  const idempotencyBefore = async (request: MiddyRequest): Promise<HttpResponse | undefined> => {
    let view: HttpRequestView | undefined;
    let unreadable: unknown;
    try {
      view = viewHttpEvent(request.event);
    } catch (error) {
      unreadable = error;
    }
    const { operation, tenant, scopeError } = view ? scopeOf(view, request.event) : { operation: 'unknown' };
    const reading = view ? readKeyHeader(view.headers, headerName, view.multiValueHeaders) : undefined;
    if (view && reading?.kind === 'missing' && !(required ?? (view.method === 'POST' || view.method === 'PATCH')))
      return undefined;
    const attempt = await engine.admit(
      {
        kind: 'request',
        tenant,
        operation,
        scopeError,
        key: () => {
          if (unreadable) throw unreadable;
          return reading?.kind === 'present' ? reading.key : undefined;
        },
        keyLabel: `The ${headerName} header`,
        keyProblem: reading?.kind === 'invalid' ? reading.reason : undefined,
        fingerprint: () =>
          fingerprintOf(
            fingerprintInput ? fingerprintInput(request.event) : defaultRequestFingerprint(view as HttpRequestView),
          ),
        legacyEvent: request.event,
      },
      request.context,
    );
    const flavor = view?.flavor ?? 'v2';
    const admission = attempt.admission;
    let answer: HttpResponse | undefined;
    if (admission.kind === 'refused') {
      answer = answers.answerFor(admission.error, flavor, attempt.requestId);
      if (!answer) {
        finish(attempt, undefined, 500);
        throw admission.error;
      }
    } else if (admission.kind === 'replay') {
      answer = replayResponse(admission.response as HttpResponse);
    } else {
      (request.internal as Record<string, unknown>)[STATE] = { flavor, attempt } satisfies AttemptState;
      return undefined;
    }
    finish(attempt, answer);
    return answer;
  };

  const idempotencyAfter = async (request: MiddyRequest): Promise<void> => {
    const state = takeState(request);
    if (!state) return;
    const { flavor, attempt } = state;
    try {
      request.response = answerOf(
        await engine.conclude(attempt, { kind: 'returned', result: request.response }),
        flavor,
        attempt,
      );
    } catch (error) {
      const problem = answers.answerFor(error, flavor, attempt.requestId);
      if (!problem) {
        // Not the guard's to answer: it travels on like the handler's own error.
        finish(attempt, undefined, 500);
        throw error;
      }
      request.response = problem;
    }
    finish(attempt, request.response as HttpResponse);
  };

  const idempotencyOnError = async (request: MiddyRequest): Promise<void> => {
    const state = takeState(request);
    if (!state) return;
    const { flavor, attempt } = state;
    // A response another middleware already set stays as it is.
    const answered = request.response !== undefined;
    let interrupted = false;
    try {
      const result = await engine.conclude(attempt, { kind: 'threw', error: request.error, answered });
      interrupted = result.kind === 'failed' && result.interrupted;
      if (!answered) request.response = answerOf(result, flavor, attempt);
    } catch (error) {
      request.response = answers.answerFor(error, flavor, attempt.requestId) ?? request.response;
    }
    const response = request.response as HttpResponse | undefined;
    // An interrupted invocation has no answer of its own: Middy's error travels on to Lambda.
    finish(attempt, response, response?.statusCode ?? (interrupted ? undefined : 500));
  };

  return { before: idempotencyBefore, after: idempotencyAfter, onError: idempotencyOnError };
}

function takeState(request: MiddyRequest): AttemptState | undefined {
  const internal = request.internal as Record<string, unknown>;
  const state = internal[STATE] as AttemptState | undefined;
  if (!state) return undefined;
  delete internal[STATE];
  return state;
}

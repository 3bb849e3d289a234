import type { MiddlewareObj, Request } from '@middy/core';
import { bindScope, fingerprintOf, GUARD_OPTION_NAMES, IdempotencyEngine, newTrace, rejectUnknownOptions, resolveGuardOptions, unbindScope, checkFunction } from '../engine/index.js';
import type { AttemptScope, AttemptTrace, GuardOptions } from '../engine/index.js';
import { InvalidOptionsError, JournalUnavailableError, KeyInvalidError, KeyMissingError, LeaseLostError, ResponseNotSerializableError } from '../errors/index.js';
import { requestPk } from '../journal/index.js';
import { MetricDimension, Telemetry, type AttemptIdentity } from '../telemetry/index.js';
import { answerFor, type AnswerSettings, type StatusCodes } from './error-answers.js';
import { defaultTenant, scopePart, viewHttpEvent, type EventFlavor, type HttpRequestView } from './http-event.js';
import { ALWAYS_REPLAYED_HEADERS, isStorableStatus, normalizeResponse, replayResponse, storedForm, type HttpResponse } from './http-response.js';
import { readKeyHeader } from './key-header.js';
import { DEFAULT_PROBLEM_TYPE_PREFIX } from './problem.js';
import { defaultRequestFingerprint } from './request-fingerprint.js';

/** Options of {@link httpIdempotency}. */
export interface HttpIdempotencyOptions extends GuardOptions {
  /**
   * Operation part of the scope.
   * @default `${method} ${route}` from the event (the route template where the event has one)
   */
  readonly operation?: string | ((event: any) => string);
  /**
   * Tenant part of the scope, from the authorizer, never from a client header. A number is its
   * decimal string; an empty string or any other value is refused (400 `invalid-request`).
   * @default v2 JWT claims.sub; v2 Lambda authorizer lambda.tenantId ?? principalId; IAM userArn; v1 authorizer.principalId ?? claims.sub; '-' if none
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
}

const OPTION_NAMES = [...GUARD_OPTION_NAMES, 'operation', 'tenant', 'required', 'fingerprint', 'statusCodes', 'replayHeaders', 'headerName', 'problemTypePrefix'];
const STATE = 'idemkit';

interface AttemptState {
  readonly flavor: EventFlavor;
  readonly scope: AttemptScope;
  readonly trace: AttemptTrace;
  readonly identity: AttemptIdentity;
  readonly startedAtEpochMs: number;
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
export function httpIdempotency(options: HttpIdempotencyOptions): MiddlewareObj {
  rejectUnknownOptions('httpIdempotency', options, OPTION_NAMES);
  const settings = resolveGuardOptions('httpIdempotency', options);
  for (const name of ['tenant', 'fingerprint'] as const) checkFunction('httpIdempotency', name, options[name]);
  if (options.operation !== undefined && typeof options.operation !== 'string' && typeof options.operation !== 'function') {
    throw new InvalidOptionsError("httpIdempotency: 'operation' must be a string or a function");
  }
  if (options.replayHeaders !== undefined && !(Array.isArray(options.replayHeaders) && options.replayHeaders.every((h) => typeof h === 'string'))) {
    throw new InvalidOptionsError("httpIdempotency: 'replayHeaders' must be an array of header names");
  }
  const headerName = options.headerName ?? 'Idempotency-Key';
  const replayHeaders = new Set([...ALWAYS_REPLAYED_HEADERS, ...(options.replayHeaders ?? []).map((h) => h.toLowerCase())]);
  // A response handed back by a `recover` hook is stored like a handler's: allow-listed headers only.
  const engine = new IdempotencyEngine({ ...settings, storedFormOf: (response) => storedForm(normalizeResponse(response), replayHeaders) });
  const telemetry = new Telemetry(MetricDimension.operation, options);
  const answers: AnswerSettings = {
    statusCodes: { missingKey: 400, invalidKey: 400, mismatch: 422, inProgress: 409, needsReview: 409, ...options.statusCodes },
    typePrefix: options.problemTypePrefix ?? DEFAULT_PROBLEM_TYPE_PREFIX,
    retryAfterSeconds: settings.retryAfterSeconds,
  };

  function finish(identity: AttemptIdentity, trace: AttemptTrace, startedAtEpochMs: number, response: HttpResponse): HttpResponse {
    const location = response.headers?.location ?? response.headers?.Location;
    telemetry.emit({ ...identity, responseCode: response.statusCode, resourceId: location === undefined ? undefined : String(location) }, trace, startedAtEpochMs, settings.clock());
    return response;
  }

  function answerOrThrow(error: unknown, flavor: EventFlavor): HttpResponse {
    const answer = answerFor(error, flavor, answers);
    if (!answer) throw error;
    return answer;
  }

  const idempotencyBefore = async (request: Request): Promise<HttpResponse | undefined> => {
    const startedAtEpochMs = settings.clock();
    const trace = newTrace();
    let view: HttpRequestView;
    try {
      view = viewHttpEvent(request.event);
    } catch (error) {
      return finish({ requestId: request.context?.awsRequestId, operation: 'unknown' }, trace, startedAtEpochMs, answerOrThrow(error, 'v2'));
    }
    let operation: string;
    let tenant: string;
    try {
      const named = typeof options.operation === 'function' ? options.operation(request.event) : (options.operation ?? view.route);
      operation = scopePart(named, "the 'operation' option") ?? view.route;
      tenant = options.tenant ? (scopePart(options.tenant(request.event), "the 'tenant' option") ?? '-') : defaultTenant(view);
    } catch (error) {
      return finish({ requestId: request.context?.awsRequestId, operation: 'unknown' }, trace, startedAtEpochMs, answerOrThrow(error, view.flavor));
    }
    const identity: AttemptIdentity = { requestId: request.context?.awsRequestId, tenant, operation };
    const reading = readKeyHeader(view.headers, headerName, view.multiValueHeaders);
    if (reading.kind === 'missing') {
      const required = options.required ?? (view.method === 'POST' || view.method === 'PATCH');
      if (!required) return undefined;
      trace.status = 'missing_key';
      return finish(identity, trace, startedAtEpochMs, answerOrThrow(new KeyMissingError(`The ${headerName} header is required for ${operation}`), view.flavor));
    }
    if (reading.kind === 'invalid') {
      trace.status = 'invalid_key';
      return finish(identity, trace, startedAtEpochMs, answerOrThrow(new KeyInvalidError(reading.reason), view.flavor));
    }
    let keyed: AttemptIdentity = { ...identity, key: reading.key };
    try {
      const fingerprint = fingerprintOf(options.fingerprint ? options.fingerprint(request.event) : defaultRequestFingerprint(view));
      const full: AttemptIdentity = (keyed = { ...keyed, requestHash: fingerprint });
      const remainingTimeMs = typeof request.context?.getRemainingTimeInMillis === 'function' ? () => request.context.getRemainingTimeInMillis() : undefined;
      const admission = await engine.admit(
        { pk: requestPk(tenant, operation, reading.key), key: reading.key, scope: `${tenant}#${operation}`, fingerprint, remainingTimeMs },
        trace,
      );
      if (admission.kind === 'replay') return finish(full, trace, startedAtEpochMs, replayResponse(admission.response as HttpResponse));
      bindScope(request.context, admission.scope);
      (request.internal as Record<string, unknown>)[STATE] = { flavor: view.flavor, scope: admission.scope, trace, identity: full, startedAtEpochMs } satisfies AttemptState;
      return undefined;
    } catch (error) {
      return finish(keyed, trace, startedAtEpochMs, answerOrThrow(error, view.flavor));
    }
  };

  const idempotencyAfter = async (request: Request): Promise<void> => {
    const state = takeState(request);
    if (!state) return;
    const { flavor, scope, trace, identity, startedAtEpochMs } = state;
    let response: HttpResponse | undefined;
    try {
      response = normalizeResponse(request.response);
      const store = isStorableStatus(response.statusCode);
      const settlement = await engine.settle(scope, { store, response: store ? storedForm(response, replayHeaders) : undefined }, trace);
      trace.downstreamReference = firstEvidence(scope);
      request.response = settlement.kind === 'superseded' ? replayResponse(settlement.response as HttpResponse) : response;
    } catch (error) {
      if (response === undefined && error instanceof ResponseNotSerializableError) {
        // The handler ran: its record completes without the result (the journal refuses it the same way), never to run again.
        await engine.settle(scope, { store: true, response: request.response }, trace).catch(() => undefined);
      }
      const answer = answerFor(error, flavor, answers);
      if (!answer) {
        // Not the guard's to answer (a staged write refused on its own table): it travels on like the handler's own error.
        telemetry.emit({ ...identity, responseCode: 500 }, trace, startedAtEpochMs, settings.clock());
        throw error;
      }
      request.response = answer;
    }
    finish(identity, trace, startedAtEpochMs, request.response as HttpResponse);
  };

  const idempotencyOnError = async (request: Request): Promise<void> => {
    const state = takeState(request);
    if (!state) return;
    const { flavor, scope, trace, identity, startedAtEpochMs } = state;
    if (request.error instanceof LeaseLostError && request.response === undefined) {
      // The handler's own write was refused: another attempt owns the record, so its outcome answers.
      try {
        request.response = replayResponse((await engine.afterLeaseLost(scope, request.error, trace)).response as HttpResponse);
      } catch (error) {
        request.response = answerOrThrow(error, flavor);
      }
    } else {
      await engine.abandon(scope, trace);
      // The journal failing under this attempt's own calls (beginEffect, heartbeat) is a 503, not a crash. Other guard
      // errors from inside the handler (a nested guard's mismatch, say) are not this request's answer.
      if (request.response === undefined && request.error instanceof JournalUnavailableError) {
        request.response = answerFor(request.error, flavor, answers);
      }
    }
    trace.downstreamReference = firstEvidence(scope);
    // Another middleware may already have turned the error into a response: it stays as it is.
    const responseCode = (request.response as HttpResponse | undefined)?.statusCode ?? 500;
    telemetry.emit({ ...identity, responseCode }, trace, startedAtEpochMs, settings.clock());
  };

  return { before: idempotencyBefore, after: idempotencyAfter, onError: idempotencyOnError };
}

function takeState(request: Request): AttemptState | undefined {
  const internal = request.internal as Record<string, unknown>;
  const state = internal[STATE] as AttemptState | undefined;
  if (!state) return undefined;
  delete internal[STATE];
  unbindScope(request.context);
  return state;
}

function firstEvidence(scope: AttemptScope): string | undefined {
  const first = Object.values(scope.evidence)[0];
  return first === undefined ? undefined : String(first);
}

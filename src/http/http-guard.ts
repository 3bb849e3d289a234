import { IdempotencyError, LeaseLostError, NO_TENANT, ResponseTooLargeError, scopePart } from '../core/index.js';
import {
  DEFAULT_LEASE_MS,
  fingerprintOf,
  IdempotencyEngine,
  type Attempt,
  type LambdaContextLike,
  type LegacyLookup,
  type RunResult,
} from '../engine/index.js';
import { MetricDimension, Telemetry } from '../telemetry/index.js';
import type { HttpGuardSettings } from './http-guard-options.js';
import { readKeyHeader, type EventFlavor } from './http-event.js';
import {
  assertHttpResponse,
  isStorableStatus,
  normalizeResponse,
  ProblemAnswers,
  replayResponse,
  SCOPE_ERROR_CODES,
  storedForm,
  type HttpResponse,
} from './http-response.js';
import { storedBody } from './captured-response.js';
import { LeaseRenewal } from './lease-renewal.js';
import { defaultRequestFingerprint } from './request-fingerprint.js';
import { StreamTee, type StreamedBody, type StreamedResponse, type StreamEnding } from './streamed-response.js';

/**
 * The HTTP guard without a framework: key rules, scope, fingerprint, the answers of the attempt
 * table, replay, problem bodies and `statusCodes`, the same for every door. A door (Middy's
 * `httpIdempotency`, the Hono, Express and Fastify middlewares) only translates its framework's
 * request into an {@link HttpGuardRequest} and the plain {@link HttpResponse} it gets back into
 * its framework's answer.
 */

/** An HTTP request as the guard reads it, whatever door it came through. */
export interface HttpGuardRequest<Source> {
  /** Upper-case method. */
  readonly method: string;
  /** `<METHOD> <route pattern>` (`POST /payments/{id}/refunds`): the default operation. */
  readonly route: string;
  /** The concrete path (`/payments/p_1/refunds`), fingerprinted. */
  readonly path: string;
  /** The query string as a map, fingerprinted. */
  readonly query: Readonly<Record<string, unknown>>;
  readonly headers: Readonly<Record<string, string | undefined>>;
  readonly multiValueHeaders?: Readonly<Record<string, readonly string[] | undefined>>;
  /**
   * The body: absent (`undefined`, `null`, `''`), the bytes, a string as a Lambda event carries it
   * (base64 when `isBase64Encoded`), or a value a body parser already made of it.
   */
  readonly body: unknown;
  readonly isBase64Encoded?: boolean;
  /**
   * The shape of the guard's own answers (ALB answers carry a status description).
   * @default 'v2'
   */
  readonly flavor?: EventFlavor;
  /**
   * The tenant when the `tenant` option is not given: the authorizer's principal.
   * @throws RequestInvalidError when the principal cannot name a tenant
   */
  readonly defaultTenant: () => string;
  /** What the `operation`, `tenant` and `fingerprint` options read (the Lambda event, the framework's request). */
  readonly source: Source;
  /**
   * The attempt's own context: `idempotencyOf` finds the scope through it, and its
   * `getRemainingTimeInMillis`, when present, is the deadline the lease follows.
   */
  readonly context: LambdaContextLike;
  /** What a `migrateFrom` lookup reads (the raw Lambda event). */
  readonly legacyEvent?: unknown;
}

/** A request the door could not read (an event of no HTTP shape): answered 400 `invalid-request` once its key is checked. */
export interface UnreadableHttpRequest<Source> {
  readonly unreadable: unknown;
  readonly source: Source;
  readonly context: LambdaContextLike;
}

/** A guarded request whose handler may run: hand its ending back to the guard. */
export interface RunningHttpRequest {
  readonly attempt: Attempt;
  readonly flavor: EventFlavor;
}

/** What a request meets before its handler runs. */
export type HttpAdmission =
  /** No key, and the method does not require one: the handler runs unguarded. */
  | { readonly kind: 'pass' }
  /** A replay or the guard's own refusal: the handler does not run. */
  | { readonly kind: 'answer'; readonly response: HttpResponse }
  /** The handler runs under the attempt's scope. */
  | { readonly kind: 'run'; readonly running: RunningHttpRequest };

/** How a handler behind a framework door ended. */
export type DoorEnding =
  /** A response was sent in full (by the handler, or by the framework for it): the captured response. */
  | { readonly kind: 'returned'; readonly response: HttpResponse }
  /** The handler threw; the framework's own error answer stands unless the guard answers the error. */
  | { readonly kind: 'threw'; readonly error: unknown };

/** What a framework door sends. */
export type DoorAnswer =
  /** Run the handler as if no guard were there. */
  | { readonly kind: 'pass' }
  /** Send the response the handler (or the framework for it) made, as it was captured. */
  | { readonly kind: 'own' }
  /** Send this response instead (a replay, a problem, another attempt's outcome). */
  | { readonly kind: 'answer'; readonly response: HttpResponse };

/**
 * A captured response the door stopped buffering (its body passed the capture limit): it cannot
 * be stored whole, so its record completes without it and every caller gets `response-too-large`.
 */
export class OversizedResponse implements HttpResponse {
  constructor(
    readonly statusCode: number,
    /** Bytes of body seen before the door stopped counting. */
    readonly sizeBytes: number,
  ) {}
}

const PASS = Object.freeze({ kind: 'pass' } as const);
const OWN = Object.freeze({ kind: 'own' } as const);

/** The framework-free HTTP guard (see the module comment). One per middleware instance, shared by its requests. */
export class HttpGuard<Source> {
  private readonly engine: IdempotencyEngine;
  private readonly answers: ProblemAnswers;

  constructor(
    private readonly settings: HttpGuardSettings<Source>,
    legacyLookup?: LegacyLookup,
  ) {
    const { replayHeaders } = settings;
    // A response handed back by a `recover` hook or the previous library is stored like a handler's: allow-listed
    // headers only.
    const storedFormOf = (response: unknown) => storedForm(normalizeResponse(response), replayHeaders);
    this.answers = new ProblemAnswers(
      settings.factory,
      settings.statusCodes,
      settings.problemTypePrefix,
      settings.engine.retryAfterSeconds,
    );
    this.engine = new IdempotencyEngine(
      {
        ...settings.engine,
        storedFormOf,
        legacyLookup,
        assertReplayable: assertHttpResponse,
        // 5xx, 408 and 429 are not stored: a retry runs again. The first caller gets the response as the handler
        // shaped it.
        outcomeOf: (result) => {
          if (result instanceof OversizedResponse) {
            if (isStorableStatus(result.statusCode)) throw new ResponseTooLargeError(result.sizeBytes);
            const refused = new ResponseTooLargeError(result.sizeBytes);
            return { store: false, response: undefined, answer: this.answers.answerFor(refused, 'v2') };
          }
          const response = normalizeResponse(result);
          const store = isStorableStatus(response.statusCode);
          return { store, response: store ? storedForm(response, replayHeaders) : undefined, answer: response };
        },
      },
      new Telemetry(MetricDimension.operation, settings.telemetry),
    );
  }

  /**
   * Checks the key, the scope and the fingerprint, and decides what the request meets. The
   * running attempt's scope is bound to `request.context` until it is concluded.
   *
   * @throws the refusal's error when the guard has no answer for it (it travels on like the handler's own)
   */
  async admit(request: HttpGuardRequest<Source> | UnreadableHttpRequest<Source>): Promise<HttpAdmission> {
    const { headerName, required } = this.settings;
    const readable = 'unreadable' in request ? undefined : request;
    const { operation, tenant, scopeError } = readable ? this.scopeOf(readable) : { operation: 'unknown' };
    const reading = readable ? readKeyHeader(readable.headers, headerName, readable.multiValueHeaders) : undefined;
    if (
      readable &&
      reading?.kind === 'missing' &&
      !(required ?? (readable.method === 'POST' || readable.method === 'PATCH'))
    )
      return PASS;
    const fingerprintInput = this.settings.fingerprint;
    const attempt = await this.engine.admit(
      {
        kind: 'request',
        tenant,
        operation,
        scopeError,
        key: () => {
          if (!readable) throw (request as UnreadableHttpRequest<Source>).unreadable;
          return reading?.kind === 'present' ? reading.key : undefined;
        },
        keyLabel: `The ${headerName} header`,
        keyProblem: reading?.kind === 'invalid' ? reading.reason : undefined,
        fingerprint: () =>
          fingerprintOf(
            fingerprintInput
              ? fingerprintInput(request.source)
              : defaultRequestFingerprint(readable as HttpGuardRequest<Source>),
          ),
        legacyEvent: readable?.legacyEvent,
      },
      request.context,
    );
    const flavor = readable?.flavor ?? 'v2';
    const admission = attempt.admission;
    let answer: HttpResponse | undefined;
    if (admission.kind === 'refused') {
      answer = this.answers.answerFor(admission.error, flavor, attempt.requestId);
      if (!answer) {
        finish(attempt, undefined, 500);
        throw admission.error;
      }
    } else if (admission.kind === 'replay') {
      answer = replayResponse(admission.response as HttpResponse);
    } else {
      return { kind: 'run', running: { attempt, flavor } };
    }
    finish(attempt, answer);
    return { kind: 'answer', response: answer };
  }

  /**
   * Concludes a running request whose handler returned `result`: stores it (or lets the record go)
   * and gives the answer, the handler's own response when it ran.
   *
   * @throws an error the guard does not own (it travels on like the handler's own)
   */
  async concludeReturned(running: RunningHttpRequest, result: unknown): Promise<HttpResponse | undefined> {
    const { attempt, flavor } = running;
    let response: HttpResponse | undefined;
    try {
      response = this.answerOf(await this.engine.conclude(attempt, { kind: 'returned', result }), flavor, attempt);
    } catch (error) {
      response = this.answers.answerFor(error, flavor, attempt.requestId);
      if (!response) {
        // Not the guard's to answer: it travels on like the handler's own error.
        finish(attempt, undefined, 500);
        throw error;
      }
    }
    finish(attempt, response);
    return response;
  }

  /**
   * Concludes a running request whose handler threw. `answered` is a response another
   * middleware already made of the error: it stands. Returns the answer, or undefined when the
   * handler's error travels on (the record released, or held when the invocation ended first).
   */
  async concludeThrew(
    running: RunningHttpRequest,
    error: unknown,
    answered?: HttpResponse,
  ): Promise<HttpResponse | undefined> {
    const { attempt, flavor } = running;
    let response = answered;
    let interrupted = false;
    try {
      const result = await this.engine.conclude(attempt, { kind: 'threw', error, answered: answered !== undefined });
      interrupted = result.kind === 'failed' && result.interrupted;
      if (!answered) response = this.answerOf(result, flavor, attempt);
    } catch (guardError) {
      response = this.answers.answerFor(guardError, flavor, attempt.requestId) ?? response;
    }
    // An interrupted invocation has no answer of its own: the error travels on to Lambda.
    finish(attempt, response, response?.statusCode ?? (interrupted ? undefined : 500));
    return response;
  }

  /**
   * Concludes a running request whose handler answered with a streamed body (Lambda response
   * streaming): returns the body to send in its place. It is the handler's bytes as they come,
   * kept meanwhile; once the source ended the record is decided and only then does the body end
   * (see {@link StreamTee}). A status that is not stored (5xx, 408, 429) lets the record go at
   * once and the handler's own body goes out untouched.
   */
  async concludeStreamed(running: RunningHttpRequest, streamed: StreamedResponse): Promise<StreamedBody> {
    if (!isStorableStatus(streamed.head.statusCode)) {
      await this.concludeReturned(running, { ...streamed.head, body: '' });
      return streamed.body;
    }
    return new StreamTee(streamed.body, (ending) => this.settleStreamed(running, streamed.head, ending)).output;
  }

  /**
   * Decides the record of a streamed answer once its body ended: stored when it ended whole,
   * a failure when it errored or outgrew the limit (released, or `UNKNOWN` after `beginEffect`).
   * Returns the error the caller's stream ends with instead of its normal end, when the record
   * does not stand behind what was sent (a failure, a refused store, another attempt's outcome).
   * Never throws: there is no one left to throw to but the stream.
   */
  private async settleStreamed(
    running: RunningHttpRequest,
    head: HttpResponse,
    ending: StreamEnding,
  ): Promise<Error | undefined> {
    const { attempt, flavor } = running;
    try {
      if (ending.kind === 'failed') {
        const result = await this.engine.conclude(attempt, { kind: 'threw', error: ending.error });
        finish(attempt, undefined, 500);
        return asError(result.kind === 'failed' ? result.error : ending.error);
      }
      // The metadata already sent has no isBase64Encoded: the bytes are what the caller got.
      const { isBase64Encoded: _sent, ...metadata } = head;
      const response: HttpResponse = { ...metadata, ...storedBody(ending.bytes) };
      const result = await this.engine.conclude(attempt, { kind: 'returned', result: response });
      if (result.kind === 'ran') {
        finish(attempt, head);
        return undefined;
      }
      // Another attempt's outcome is the key's answer: the bytes sent are not it.
      finish(attempt, this.answerOf(result, flavor, attempt), 500);
      return result.kind === 'failed' ? asError(result.error) : new LeaseLostError();
    } catch (error) {
      finish(attempt, this.answers.answerFor(error, flavor, attempt.requestId), 500);
      return asError(error);
    }
  }

  /**
   * Runs one request through a framework door: admits it, runs the handler with `run` (renewing
   * the lease meanwhile when there is no deadline), stores its outcome, and says what to send.
   * The first caller's answer comes only after the outcome is stored, so a retry that follows it replays.
   *
   * @throws an error the guard does not own (it travels on to the framework's error handling)
   */
  async handle(request: HttpGuardRequest<Source>, run: () => Promise<DoorEnding>): Promise<DoorAnswer> {
    const admission = await this.admit(request);
    if (admission.kind !== 'run') return admission;
    const { running } = admission;
    const renewal = this.renewalFor(running, request.context);
    let ending: DoorEnding;
    try {
      ending = await run();
    } catch (error) {
      ending = { kind: 'threw', error };
    } finally {
      await renewal?.stop();
    }
    if (ending.kind === 'returned') {
      const response = await this.concludeReturned(running, ending.response);
      return response === ending.response || response === undefined ? OWN : { kind: 'answer', response };
    }
    const response = await this.concludeThrew(running, ending.error);
    return response ? { kind: 'answer', response } : OWN;
  }

  /**
   * Outside Lambda nothing bounds the handler: the lease is renewed at a third of its length
   * until the handler settles. Under a deadline the lease already covers it; a staged-only
   * attempt holds none.
   */
  private renewalFor(running: RunningHttpRequest, context: LambdaContextLike): LeaseRenewal | undefined {
    const admission = running.attempt.admission;
    if (admission.kind !== 'run' || !admission.scope.leased) return undefined;
    if (typeof context.getRemainingTimeInMillis === 'function') return undefined;
    const leaseMs = this.settings.engine.leaseMs ?? DEFAULT_LEASE_MS;
    return LeaseRenewal.start(admission.scope, leaseMs / 3);
  }

  /** The HTTP answer of a concluded attempt; undefined when the handler's own error travels on. */
  private answerOf(result: RunResult, flavor: EventFlavor, attempt: Attempt): HttpResponse | undefined {
    if (result.kind === 'superseded') return replayResponse(result.response as HttpResponse);
    if (result.kind === 'failed') return this.answeredScopeError(result.error, flavor, attempt);
    return result.response as HttpResponse;
  }

  /**
   * A guard error the handler let through from its scope (a claim taken, a staged write refused, the journal down) is
   * answered like the guard's own; any other error of the handler's, a nested guard's included, travels on.
   */
  private answeredScopeError(error: unknown, flavor: EventFlavor, attempt: Attempt): HttpResponse | undefined {
    const raisedByScope = error instanceof IdempotencyError && SCOPE_ERROR_CODES.has(error.code);
    return raisedByScope ? this.answers.answerFor(error, flavor, attempt.requestId) : undefined;
  }

  /** The operation and tenant of a request, or why they cannot be read (answered once the key passed its checks). */
  private scopeOf(request: HttpGuardRequest<Source>): { operation: string; tenant?: string; scopeError?: unknown } {
    const { operation: operationOption, tenant: tenantOf } = this.settings;
    try {
      const named = typeof operationOption === 'function' ? operationOption(request.source) : operationOption;
      const operation = scopePart(named ?? request.route, "the 'operation' option") ?? request.route;
      const tenant = tenantOf
        ? (scopePart(tenantOf(request.source), "the 'tenant' option") ?? NO_TENANT)
        : request.defaultTenant();
      return { operation, tenant };
    } catch (scopeError) {
      return { operation: 'unknown', scopeError };
    }
  }
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}

function finish(attempt: Attempt, response: HttpResponse | undefined, responseCode = response?.statusCode): void {
  const location = response?.headers?.location ?? response?.headers?.Location;
  attempt.finish({ responseCode, resourceId: location === undefined ? undefined : String(location) });
}

import { constructGivenName, InvalidOptionsError, readBoolean, readFunction, readString } from '../core/index.js';
import { resolveGuardOptions, type EngineSettings, type GuardOptions } from '../engine/index.js';
import type { TelemetryOptions } from '../telemetry/index.js';
import { ALWAYS_REPLAYED_HEADERS, DEFAULT_PROBLEM_TYPE_PREFIX, type StatusCodes } from './http-response.js';

/**
 * Options of the HTTP guard that every door shares (Middy's `httpIdempotency`, `idemkit/hono`,
 * `idemkit/express`, `idemkit/fastify`). `Source` is what the option functions read: the Lambda
 * event under Middy, the framework's own request object in a framework door.
 */
export interface HttpGuardOptions<Source = any> extends GuardOptions {
  /**
   * Operation part of the scope.
   * @default `IDEMKIT_OPERATION` (`IdemkitFunction`'s `operationName`), else the method and the route
   *   (`POST /payments/{id}/refunds`: API Gateway's route key or resource, a framework's route pattern with
   *   `:id` written `{id}`)
   */
  readonly operation?: string | ((source: Source) => string);
  /**
   * Tenant part of the scope, from the authorizer, never from a client header. A number is its
   * decimal string; an empty string or any other value is refused (400 `invalid-request`).
   * @default v2 JWT claims.sub; v2 Lambda authorizer lambda.tenantId ?? principalId; IAM userArn; v1
   *   authorizer.principalId ?? claims.sub (read from the Lambda event, when a framework door has it); '-' if none
   */
  readonly tenant?: (source: Source) => string;
  /**
   * Whether a request without a key is refused (400). When false, such a request runs unguarded.
   * @default true for POST and PATCH, false otherwise
   */
  readonly required?: boolean;
  /**
   * What the fingerprint covers.
   * @default method, concrete path, query string and JSON body (raw bytes if not JSON)
   */
  readonly fingerprint?: (source: Source) => unknown;
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

/** Defaults of {@link HttpGuardOptions} besides the shared guard defaults. */
export const DEFAULT_HTTP_IDEMPOTENCY_OPTIONS = Object.freeze({
  headerName: 'Idempotency-Key',
  problemTypePrefix: DEFAULT_PROBLEM_TYPE_PREFIX,
  replayHeaders: Object.freeze([] as string[]),
});

/** Names of {@link HttpGuardOptions} besides the shared guard options, for unknown-option checks. */
export const HTTP_GUARD_OPTION_NAMES = [
  'operation',
  'tenant',
  'required',
  'fingerprint',
  'statusCodes',
  'replayHeaders',
  'headerName',
  'problemTypePrefix',
] as const satisfies readonly (keyof HttpGuardOptions)[];

/** The options of one HTTP guard, checked and resolved once when its factory is called. */
export interface HttpGuardSettings<Source> {
  /** The factory's name, for errors (`httpIdempotency`, `idemkit/express idempotency`). */
  readonly factory: string;
  readonly engine: EngineSettings;
  /** Where the attempts' log lines and metrics go. */
  readonly telemetry: TelemetryOptions;
  readonly operation?: string | ((source: Source) => string);
  readonly tenant?: (source: Source) => string;
  readonly fingerprint?: (source: Source) => unknown;
  readonly required?: boolean;
  readonly headerName: string;
  readonly problemTypePrefix: string;
  readonly statusCodes?: StatusCodes;
  /** Lower-case names of the headers stored with a response. */
  readonly replayHeaders: ReadonlySet<string>;
}

/**
 * Checks an HTTP guard's options (unknown names included: `known` lists a door's own names
 * besides the shared ones) and resolves them.
 *
 * @throws InvalidOptionsError naming the factory and the option
 */
export function resolveHttpGuardOptions<Source>(
  factory: string,
  options: HttpGuardOptions<Source>,
  known: readonly string[],
): HttpGuardSettings<Source> {
  const engine = resolveGuardOptions(factory, options, [...HTTP_GUARD_OPTION_NAMES, ...known]);
  if (options.operation !== undefined && typeof options.operation !== 'function')
    readString(factory, 'operation', options.operation, undefined);
  if (
    options.replayHeaders !== undefined &&
    !(Array.isArray(options.replayHeaders) && options.replayHeaders.every((h) => typeof h === 'string'))
  ) {
    throw new InvalidOptionsError(`${factory}: option 'replayHeaders' must be an array of header names`);
  }
  return {
    factory,
    engine,
    telemetry: options,
    operation: options.operation ?? constructGivenName('operation'),
    tenant: readFunction(factory, 'tenant', options.tenant, undefined),
    fingerprint: readFunction(factory, 'fingerprint', options.fingerprint, undefined),
    required: readBoolean(factory, 'required', options.required, undefined),
    headerName: readString(factory, 'headerName', options.headerName, DEFAULT_HTTP_IDEMPOTENCY_OPTIONS.headerName),
    problemTypePrefix: readString(
      factory,
      'problemTypePrefix',
      options.problemTypePrefix,
      DEFAULT_HTTP_IDEMPOTENCY_OPTIONS.problemTypePrefix,
    ),
    statusCodes: options.statusCodes,
    replayHeaders: new Set([
      ...ALWAYS_REPLAYED_HEADERS,
      ...(options.replayHeaders ?? DEFAULT_HTTP_IDEMPOTENCY_OPTIONS.replayHeaders).map((h) => h.toLowerCase()),
    ]),
  };
}

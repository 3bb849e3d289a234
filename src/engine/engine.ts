import { ResponseNotSerializableError, ResponseTooLargeError } from '../core/index.js';
import type { AttemptStatus, Telemetry } from '../telemetry/index.js';
import { Attempt } from './attempt.js';
import type { RunResult } from './attempt-executor.js';
import type { AttemptRequest } from './attempt-request.js';
import type { EngineSettings } from './guard-options.js';
import type { LambdaContextLike } from './invocation.js';
import { notStoredMarker } from './stored-outcome.js';

/** The handler side of {@link IdempotencyEngine.run}. */
export interface GuardedHandler {
  /** Runs the handler with the attempt's own context (its scope bound). */
  invoke(context: LambdaContextLike): Promise<unknown>;
  /** Hears of an attempt that ends in an error, before it is thrown. */
  onFailed?(error: unknown, status: AttemptStatus | undefined): void;
}

/**
 * How a guarded handler ended, as an entry point hands it to {@link IdempotencyEngine.conclude}:
 * it returned a result, or it threw (`answered`: another middleware already turned the error
 * into a response, which stands).
 */
export type HandlerEnding =
  | { readonly kind: 'returned'; readonly result: unknown }
  | { readonly kind: 'threw'; readonly error: unknown; readonly answered?: boolean };

/**
 * The one owner of every guarded attempt, whatever the entry point. An entry point asks it to
 * {@link admit} a request (refused, replayed, or run with a scope), runs the handler itself, and
 * hands it the ending to {@link conclude}; {@link run} does all three for entry points that call
 * the handler themselves. Every decision — what a found record means, storing, releasing,
 * marking `UNKNOWN`, holding the key when the invocation ended first — is made behind these
 * calls, the same for every entry point.
 */
export class IdempotencyEngine {
  constructor(
    readonly settings: EngineSettings,
    private readonly telemetry: Telemetry,
  ) {
    if (settings.tracer) settings.journal.traceWith?.(settings.tracer);
  }

  /**
   * Starts an attempt and admits it. Never throws for a guard situation: the attempt's
   * `admission` says whether it was refused (with the typed error), is a replay, or runs.
   * A running attempt's scope is bound to `context` until it is concluded.
   */
  async admit(request: AttemptRequest, context: LambdaContextLike): Promise<Attempt> {
    const attempt = new Attempt(request, context, this.settings, this.telemetry);
    await attempt.admit();
    return attempt;
  }

  /**
   * Concludes a running attempt once its handler ended. An invocation that ended before the
   * handler settled (Middy's `timeoutEarly`, a durable invocation's timeout or abort) leaves the
   * record held: its outcome is unknown. A result the entry point cannot keep
   * (`ResponseNotSerializableError` or `ResponseTooLargeError` from `outcomeOf`) completes the record with a marker, so the
   * handler never runs again for the key, and every caller gets that error.
   *
   * @returns `ran`, `superseded` (another attempt's outcome answers) or `failed` (the handler's own
   *   error stands; the entry point lets it travel on)
   * @throws the guard's own errors (conflicts, journal unavailable, a lost lease's in-progress or review)
   */
  async conclude(attempt: Attempt, ending: HandlerEnding): Promise<RunResult> {
    if (ending.kind === 'threw') {
      if (attempt.endsBeforeSettling(ending.error)) return attempt.interrupt(ending.error);
      if (ending.answered) return attempt.failAnswered(ending.error);
      return attempt.fail(ending.error);
    }
    let outcome;
    try {
      outcome = this.settings.outcomeOf(ending.result);
    } catch (error) {
      const unkept = error instanceof ResponseNotSerializableError || error instanceof ResponseTooLargeError;
      if (!unkept) return attempt.fail(error);
      // The handler ran: its record completes without the result, never to run again.
      const settled = await attempt.settle({ store: true, response: notStoredMarker(error) });
      if (settled.kind === 'ran') throw error;
      return settled;
    }
    return attempt.settle(outcome);
  }

  /**
   * Runs one attempt from start to answer: `invoke` is called only when the attempt runs, with
   * a context of its own (a guarded function called from a guarded handler keeps the
   * handler's scope apart). Throws the refusal's typed error, or the handler's error after
   * the record was released (or marked `UNKNOWN`, or left held when the invocation ended first);
   * `onFailed` hears of it first, with the attempt's status.
   */
  async run(request: AttemptRequest, context: LambdaContextLike, handler: GuardedHandler): Promise<RunResult> {
    const scoped = Object.create(context ?? null) as LambdaContextLike;
    const attempt = await this.admit(request, scoped);
    try {
      const admission = attempt.admission;
      if (admission.kind === 'refused') throw admission.error;
      if (admission.kind === 'replay') return { kind: 'replayed', response: admission.response };
      let ending: HandlerEnding;
      try {
        ending = { kind: 'returned', result: await handler.invoke(scoped) };
      } catch (error) {
        ending = { kind: 'threw', error };
      }
      const result = await this.conclude(attempt, ending);
      if (result.kind === 'failed') throw result.error;
      return result;
    } catch (error) {
      handler.onFailed?.(error, attempt.trace.status);
      throw error;
    } finally {
      attempt.finish();
    }
  }
}

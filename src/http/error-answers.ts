import {
  IdempotencyError,
  InProgressError,
  JournalUnavailableError,
  KeyInvalidError,
  KeyMissingError,
  NeedsReviewError,
  PayloadMismatchError,
  RequestInvalidError,
  ResponseNotSerializableError,
  ResponseTooLargeError,
  UniqueConflictError,
  WriteConflictError,
} from '../errors/index.js';
import type { EventFlavor } from './http-event.js';
import type { HttpResponse } from './http-response.js';
import { problemResponse } from './problem.js';

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

/** Settings of the error-to-problem mapping. */
export interface AnswerSettings {
  readonly statusCodes: Required<StatusCodes>;
  readonly typePrefix: string;
  readonly retryAfterSeconds: number;
}

/**
 * The documented problem answer for a guard error, or undefined for an error the guard
 * does not own (it then travels on to the other middlewares).
 */
export function answerFor(error: unknown, flavor: EventFlavor, settings: AnswerSettings): HttpResponse | undefined {
  if (!(error instanceof IdempotencyError)) return undefined;
  const { statusCodes, typePrefix } = settings;
  const answer = (status: number, retryAfterSeconds?: number) => problemResponse(flavor, status, error.code, error.message, { typePrefix, retryAfterSeconds });
  if (error instanceof KeyMissingError) return answer(statusCodes.missingKey);
  if (error instanceof KeyInvalidError) return answer(statusCodes.invalidKey);
  if (error instanceof RequestInvalidError) return answer(400);
  if (error instanceof PayloadMismatchError) return answer(statusCodes.mismatch);
  if (error instanceof InProgressError) return answer(statusCodes.inProgress, error.retryAfterSeconds);
  if (error instanceof NeedsReviewError) return answer(statusCodes.needsReview);
  if (error instanceof UniqueConflictError || error instanceof WriteConflictError) return answer(409);
  if (error instanceof JournalUnavailableError) return answer(503, settings.retryAfterSeconds);
  if (error instanceof ResponseTooLargeError || error instanceof ResponseNotSerializableError) return answer(500);
  return undefined;
}

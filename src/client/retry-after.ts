import { InProgressError } from '../core/errors.js';
import { isResponseLike } from './response-like.js';

/**
 * Parses an HTTP `Retry-After` value into a wait in milliseconds from `nowMs`.
 *
 * Accepts both forms of RFC 9110 §10.2.3: delta-seconds (`120`) and an HTTP-date
 * (`Wed, 21 Oct 2015 07:28:00 GMT`). A date in the past means "now" (0). Anything else,
 * including fractions and negative numbers, is ignored (`undefined`) rather than guessed at.
 *
 * @example
 * parseRetryAfterMs('2', Date.now()) // 2000
 */
export function parseRetryAfterMs(value: string | null | undefined, nowMs: number): number | undefined {
  if (value === null || value === undefined) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  // Date.parse also accepts bare numbers such as "-1" or "1.5" as years; a real HTTP-date
  // always names a weekday or month, so require a letter before trusting it.
  if (!/[a-z]/i.test(trimmed)) return undefined;
  const dateMs = Date.parse(trimmed);
  return Number.isNaN(dateMs) ? undefined : Math.max(0, dateMs - nowMs);
}

/**
 * The server's requested wait carried by an outcome, if any: a response's `Retry-After`
 * header, or the `retryAfterSeconds` of an `InProgressError` thrown by a guarded function.
 *
 * @example
 * retryAfterMsOf(new InProgressError(1), Date.now()) // 1000
 */
export function retryAfterMsOf(errorOrResult: unknown, nowMs: number): number | undefined {
  if (errorOrResult instanceof InProgressError) return errorOrResult.retryAfterSeconds * 1000;
  if (isResponseLike(errorOrResult)) return parseRetryAfterMs(errorOrResult.headers.get('retry-after'), nowMs);
  return undefined;
}

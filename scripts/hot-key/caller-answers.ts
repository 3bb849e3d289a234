import { isRetryableByDefault, retryAfterMsOf } from '../../src/client/index.js';
import { DEFAULT_PROBLEM_TYPE_PREFIX } from '../../src/index.js';

/** The answers a caller can get during a storm, by status class. */
export type AnswerStatus = '2xx' | '409' | '429' | '503';

/** Every answer status, in table order. */
export const ANSWER_STATUSES: readonly AnswerStatus[] = ['2xx', '409', '429', '503'];

/** How the real client reads one answer: whether it retries, and the wait the server asked for. */
export interface AnswerReading {
  readonly retryable: boolean;
  readonly retryAfterMs: number | undefined;
}

/** Reads an answer by its status and `Retry-After` seconds. */
export type AnswerReader = (status: AnswerStatus, retryAfterSeconds: number | undefined) => AnswerReading;

const PROBLEMS: Record<Exclude<AnswerStatus, '2xx'>, { status: number; code: string }> = {
  '409': { status: 409, code: 'request-in-progress' },
  '429': { status: 429, code: 'journal-throttled' },
  '503': { status: 503, code: 'journal-unavailable' },
};

/**
 * Builds each answer the guard gives as a fetch `Response` (problem bodies as the guard writes
 * them) and reads it once with the client's own `isRetryableByDefault` and `Retry-After`
 * parsing, so the simulated callers retry exactly what `idempotentFetch` retries.
 *
 * @param maxRetryAfterSeconds the largest `Retry-After` any answer carries.
 * @example
 * const read = await answerReader(3); read('409', 1) // { retryable: true, retryAfterMs: 1000 }
 */
export async function answerReader(maxRetryAfterSeconds: number): Promise<AnswerReader> {
  const readings = new Map<string, AnswerReading>();
  const secondsChoices = [undefined, ...Array.from({ length: maxRetryAfterSeconds }, (_, i) => i + 1)];
  for (const status of ANSWER_STATUSES) {
    for (const seconds of secondsChoices) {
      const response = answerOf(status, seconds);
      readings.set(readingKey(status, seconds), {
        retryable: await isRetryableByDefault(response.clone()),
        retryAfterMs: retryAfterMsOf(response, 0),
      });
    }
  }
  return (status, seconds) => {
    const reading = readings.get(readingKey(status, seconds));
    if (reading === undefined) throw new RangeError(`no answer ${status} with Retry-After ${String(seconds)} s`);
    return reading;
  };
}

function answerOf(status: AnswerStatus, retryAfterSeconds: number | undefined): Response {
  const headers: Record<string, string> = {};
  if (retryAfterSeconds !== undefined) headers['retry-after'] = String(retryAfterSeconds);
  if (status === '2xx') return new Response('{"paid":true}', { status: 201, headers });
  const { status: code, code: problem } = PROBLEMS[status];
  headers['content-type'] = 'application/problem+json';
  return new Response(JSON.stringify({ type: `${DEFAULT_PROBLEM_TYPE_PREFIX}${problem}`, status: code }), {
    status: code,
    headers,
  });
}

function readingKey(status: AnswerStatus, seconds: number | undefined): string {
  return `${status}/${seconds ?? '-'}`;
}

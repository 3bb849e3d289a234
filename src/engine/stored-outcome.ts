import { ResponseNotSerializableError, ResponseTooLargeError } from '../core/index.js';
import { expiryFromNow } from '../journal/index.js';
import type { EngineSettings } from './guard-options.js';
import { rememberOutcome } from './outcome-cache.js';

/**
 * The outcome a completed record stores: the handler's response, or, when it cannot be kept
 * (too large, or not JSON), a marker saying why. The effect happened either way, so the key
 * completes and never runs again; a replay of a marker answers with the error it stands for.
 */

const MARKER = '__idemkitResponseNotStored';

/** What is stored instead of an outcome that cannot be kept, so replays say why they cannot answer. */
export function notStoredMarker(error: ResponseTooLargeError | ResponseNotSerializableError): unknown {
  return {
    [MARKER]:
      error instanceof ResponseTooLargeError
        ? { sizeBytes: error.sizeBytes }
        : { code: error.code, reason: error.message },
  };
}

/** Whether a stored response is the marker of one that was not stored. */
export function isNotStoredMarker(response: unknown): boolean {
  return typeof response === 'object' && response !== null && MARKER in response;
}

/** Throws the error a stored response stands for when it is the marker of one that was not stored. */
export function assertStoredResponse(response: unknown): void {
  const marker =
    response && typeof response === 'object'
      ? (response as Record<string, { sizeBytes?: number; code?: string; reason?: string }>)[MARKER]
      : undefined;
  if (!marker) return;
  // The operation completed but its response could not be kept: say so rather than run it again.
  if (marker.code === 'response-not-serializable') throw new ResponseNotSerializableError(String(marker.reason));
  throw new ResponseTooLargeError(Number(marker.sizeBytes ?? 0));
}

/** What {@link storeOrMark} wrote: its result, the outcome stored, and the error to hand the first caller. */
export interface Stored<T> {
  readonly result: T;
  readonly stored: unknown;
  /** Set when the response is not JSON: the first caller gets this error, as every replay will. */
  readonly unserializable?: ResponseNotSerializableError;
}

/**
 * Completes with `write(response)`, or, when the journal refuses the response before writing
 * anything (too large, not JSON), with `write(marker)`: the writes queued with it still commit.
 */
export async function storeOrMark<T>(response: unknown, write: (stored: unknown) => Promise<T>): Promise<Stored<T>> {
  try {
    return { result: await write(response), stored: response };
  } catch (error) {
    if (!(error instanceof ResponseTooLargeError) && !(error instanceof ResponseNotSerializableError)) throw error;
    const stored = notStoredMarker(error);
    const unserializable = error instanceof ResponseNotSerializableError ? error : undefined;
    return { result: await write(stored), stored, unserializable };
  }
}

/** Keeps a completed outcome in the guard's outcome cache, as long as the record is replayed. */
export function rememberCompleted(
  settings: Pick<EngineSettings, 'outcomeCache' | 'clock' | 'ttlSeconds'>,
  record: { readonly pk: string; readonly fingerprint: string },
  stored: unknown,
): void {
  rememberOutcome(settings, {
    pk: record.pk,
    fingerprint: record.fingerprint,
    response: { value: stored },
    expiresAtEpochSeconds: expiryFromNow(settings.clock(), settings.ttlSeconds),
  });
}

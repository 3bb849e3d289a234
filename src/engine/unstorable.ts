import { ResponseNotSerializableError, ResponseTooLargeError } from '../errors/index.js';

const MARKER = '__idemkitResponseNotStored';

/** Why a completed outcome was stored without its response. */
export type UnstorableResponseError = ResponseTooLargeError | ResponseNotSerializableError;

/**
 * What is stored instead of a response too large to keep or one JSON cannot carry: the
 * operation completed, so the key must neither stay stuck nor run the effect again, and
 * replays must say why they cannot return the original.
 */
export function unstorableMarker(error: UnstorableResponseError): Record<string, unknown> {
  if (error instanceof ResponseNotSerializableError) return { [MARKER]: { code: error.code, reason: error.message } };
  return { [MARKER]: { sizeBytes: error.sizeBytes } };
}

/** True for the errors {@link unstorableMarker} stands in for. */
export function isUnstorableResponse(error: unknown): error is UnstorableResponseError {
  return error instanceof ResponseTooLargeError || error instanceof ResponseNotSerializableError;
}

/** Throws the error a stored response stands for when it is the marker of one that was not stored. */
export function assertStoredResponse(response: unknown): void {
  const marker = response && typeof response === 'object' ? (response as Record<string, { sizeBytes?: number; code?: string; reason?: string }>)[MARKER] : undefined;
  if (!marker) return;
  if (marker.code === 'response-not-serializable') throw new ResponseNotSerializableError(String(marker.reason));
  throw new ResponseTooLargeError(Number(marker.sizeBytes ?? 0));
}

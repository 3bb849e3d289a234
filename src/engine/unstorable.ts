import { ResponseTooLargeError } from '../errors/index.js';

const MARKER = '__idemkitResponseNotStored';

/**
 * What is stored instead of a response too large to keep: the operation completed, so the
 * key must neither stay stuck nor run the effect again, and replays must say why they
 * cannot return the original.
 */
export function unstorableMarker(error: ResponseTooLargeError): Record<string, unknown> {
  return { [MARKER]: { sizeBytes: error.sizeBytes } };
}

/** Throws `ResponseTooLargeError` when a stored response is the marker of one that was not stored. */
export function assertStoredResponse(response: unknown): void {
  const marker = response && typeof response === 'object' ? (response as Record<string, { sizeBytes?: number }>)[MARKER] : undefined;
  if (marker) throw new ResponseTooLargeError(Number(marker.sizeBytes ?? 0));
}

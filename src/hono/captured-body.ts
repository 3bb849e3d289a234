import { BodyCapture, capturedResponse, OversizedResponse, type HttpResponse } from '../http/index.js';

/** The headers of a fetch `Request` or `Response` as a map (repeated lines joined, as `Headers` joins them). */
export function headersOf(headers: Headers): Record<string, string> {
  const out: Record<string, string> = {};
  headers.forEach((value, name) => (out[name] = value));
  return out;
}

/**
 * A fetch `Response` a Hono handler made, read whole (its body stream to the end) as the
 * guard's plain response: past the capture limit of {@link BodyCapture} the reading stops and the response
 * is an {@link OversizedResponse}, never stored in part. A body stream that errors rejects.
 */
export async function captureResponse(response: Response): Promise<{ captured: HttpResponse; bytes: Buffer }> {
  const body = new BodyCapture();
  const reader = response.body?.getReader();
  for (;;) {
    const read = reader ? await reader.read() : { done: true as const, value: undefined };
    if (read.done) break;
    if (!body.add(read.value)) {
      await reader?.cancel();
      return { captured: new OversizedResponse(response.status, body.sizeBytes), bytes: Buffer.alloc(0) };
    }
  }
  const bytes = body.bytes();
  const headers: Record<string, string | string[]> = headersOf(response.headers);
  const cookies = response.headers.getSetCookie();
  if (cookies.length > 0) headers['set-cookie'] = cookies;
  return { captured: capturedResponse(response.status, headers, bytes), bytes };
}

import { sha256Hex } from '../core/index.js';
import { RequestInvalidError } from '../core/index.js';
import type { HttpRequestView } from './http-event.js';
import { inspectJson } from './json-shape.js';

const utf8 = new TextDecoder('utf-8', { fatal: true });
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * The default fingerprint input of an HTTP request: method, concrete path, query string and
 * body, so one key can never replay another resource's outcome. A JSON body is compared by
 * value (field order and whitespace do not matter); any other body by its bytes.
 *
 * @throws RequestInvalidError for a JSON body with duplicate keys or excessive nesting
 */
export function defaultRequestFingerprint(view: HttpRequestView): unknown {
  return { method: view.method, path: view.path, query: view.query, body: bodyForFingerprint(view) };
}

function bodyForFingerprint(view: HttpRequestView): unknown {
  const body = view.body;
  if (body === undefined || body === null || body === '') return null;
  // A body-parser middleware that ran first has already turned the text into a value.
  if (typeof body !== 'string') return { json: body };
  // UTF-8 would turn every lone surrogate into U+FFFD, and two different texts would look alike.
  if (!view.isBase64Encoded && LONE_SURROGATE.test(body)) throw new RequestInvalidError('The body is not well-formed Unicode text (lone surrogate)');
  const bytes = view.isBase64Encoded ? Buffer.from(body, 'base64') : Buffer.from(body, 'utf8');
  let text: string;
  let parsed: unknown;
  try {
    text = utf8.decode(bytes);
    parsed = JSON.parse(text);
  } catch {
    return { raw: sha256Hex(bytes) };
  }
  const shape = inspectJson(text);
  if (shape.problem) throw new RequestInvalidError(shape.problem);
  // Parsing would round such numbers, and two different requests would then look alike.
  if (shape.lossyNumbers) return { raw: sha256Hex(bytes) };
  return { json: parsed };
}

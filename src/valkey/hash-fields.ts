import { gzipSync } from 'node:zlib';
import {
  ClaimAttribute,
  COMPRESS_ABOVE_BYTES,
  RecordAttribute,
  responseJson,
  type Evidence,
  type JournalItem,
} from '../journal/index.js';

/**
 * How a journal item lives in a Valkey hash: every attribute a field of the same name, its value a
 * string (numbers in decimal, booleans `true`/`false`); each evidence entry a field of its own
 * (`ev:<name>`, its JSON), so merging evidence is an `HSET`; a response as JSON text, or gzip in
 * base64 above {@link COMPRESS_ABOVE_BYTES}. Responses stay in their record whatever their size
 * (a Valkey value holds up to 512 MB; the journal accepts 7 MB of JSON), so no chunk keys exist.
 * Reading back gives the item the DynamoDB journal would read, and `recordFromItem` decides it:
 * a value that does not parse stays a string and makes the record unreadable (the guard fails closed).
 */

/** The prefix of an evidence entry's field. */
export const EVIDENCE_FIELD_PREFIX = 'ev:';

const NUMERIC: ReadonlySet<string> = new Set([
  RecordAttribute.leaseUntil,
  RecordAttribute.attempt,
  RecordAttribute.createdAt,
  RecordAttribute.updatedAt,
  RecordAttribute.expiresAt,
  ClaimAttribute.ownerCreatedAt,
]);
const DECIMAL = /^-?\d+(\.\d+)?$/;

/** `HSET` arguments (name, value, name, value...) of an item's attributes; evidence goes through {@link evidenceFields}. */
export function fieldsOf(item: JournalItem): string[] {
  const fields: string[] = [];
  for (const [name, value] of Object.entries(item)) {
    if (value === undefined || name === RecordAttribute.evidence) continue;
    fields.push(name, typeof value === 'string' ? value : String(value));
  }
  return fields;
}

/** `HSET` arguments of evidence entries. */
export function evidenceFields(evidence: Evidence): string[] {
  return Object.entries(evidence).flatMap(([name, value]) => [
    `${EVIDENCE_FIELD_PREFIX}${name}`,
    JSON.stringify(value),
  ]);
}

/** The response's fields: `responseEncoding` and `response`. */
export function responseFields(value: unknown): string[] {
  const text = responseJson(value);
  if (Buffer.byteLength(text, 'utf8') <= COMPRESS_ABOVE_BYTES)
    return [RecordAttribute.responseEncoding, 'json', RecordAttribute.response, text];
  return [RecordAttribute.responseEncoding, 'gzip', RecordAttribute.response, gzipSync(text).toString('base64')];
}

/** The item a hash holds, from `HGETALL`'s flat name/value list (undefined when it holds none). */
export function itemOf(flat: readonly string[]): JournalItem | undefined {
  if (flat.length === 0) return undefined;
  const item: JournalItem = {};
  const evidence: Record<string, unknown> = {};
  for (let i = 0; i + 1 < flat.length; i += 2) {
    const name = flat[i]!;
    const value = flat[i + 1]!;
    if (name.startsWith(EVIDENCE_FIELD_PREFIX)) evidence[name.slice(EVIDENCE_FIELD_PREFIX.length)] = parsedOr(value);
    else item[name] = decoded(name, value);
  }
  item[RecordAttribute.evidence] = evidence;
  const response = item[RecordAttribute.response];
  if (item[RecordAttribute.responseEncoding] === 'gzip' && typeof response === 'string')
    item[RecordAttribute.response] = Buffer.from(response, 'base64');
  return item;
}

function decoded(name: string, value: string): unknown {
  if (NUMERIC.has(name)) return DECIMAL.test(value) ? Number(value) : value;
  if (name === RecordAttribute.effectStarted) return value === 'true' ? true : value === 'false' ? false : value;
  return value;
}

function parsedOr(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

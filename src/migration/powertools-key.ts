import { createHash } from 'node:crypto';
import { search } from '@aws-lambda-powertools/jmespath';
import type { PowertoolsSource } from './powertools-options.js';

/**
 * The record id `@aws-lambda-powertools/idempotency` 2.x gives an event:
 * `<keyPrefix>#<base64 digest of JSON.stringify(deepSort(selection))>`, the selection being the
 * `eventKeyJmesPath` result (the whole event for `''`). Undefined when Powertools keeps no
 * record for the event: the selection is null (it skips such events), or evaluating the
 * expression or hashing the selection throws (it fails before writing).
 */
export function powertoolsRecordId(event: unknown, source: PowertoolsSource): string | undefined {
  try {
    const selection =
      source.eventKeyJmesPath === '' ? event : search(source.eventKeyJmesPath, event as never, source.jmesPathOptions);
    if (source.eventKeyJmesPath !== '' && (selection === null || selection === undefined)) return undefined;
    return `${source.keyPrefix}#${digest(selection, source.hashFunction)}`;
  } catch {
    return undefined;
  }
}

/**
 * The validation hash Powertools stores for an event (`payloadValidationJmesPath`), or
 * undefined when evaluating it fails: then the event cannot be the one that was stored.
 */
export function powertoolsPayloadHash(event: unknown, source: PowertoolsSource): string | undefined {
  if (source.payloadValidationJmesPath === undefined) return undefined;
  try {
    return digest(
      search(source.payloadValidationJmesPath, event as never, source.jmesPathOptions),
      source.hashFunction,
    );
  } catch {
    return undefined;
  }
}

/** Powertools' `generateHash`; `update(undefined)` throws, as it does there. */
function digest(selection: unknown, hashFunction: string): string {
  return createHash(hashFunction)
    .update(JSON.stringify(deepSort(selection)) as string)
    .digest('base64');
}

/**
 * Powertools' `deepSort`, comparator included: keys ordered case-insensitively at every depth,
 * so the serialization (and with it the hash) matches byte for byte.
 */
function deepSort(data: unknown): unknown {
  if (Array.isArray(data)) return data.map(deepSort);
  if (isRecord(data)) {
    return Object.keys(data)
      .sort((a, b) => (a.toLowerCase() < b.toLowerCase() ? -1 : 1))
      .reduce<Record<string, unknown>>((sorted, key) => {
        sorted[key] = deepSort(data[key]);
        return sorted;
      }, {});
  }
  return data;
}

/** Powertools' `isRecord`: plain objects only (a Date or a Map serializes as it is). */
function isRecord(value: unknown): value is Record<string, unknown> {
  return Object.prototype.toString.call(value) === '[object Object]';
}

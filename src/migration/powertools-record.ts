import { GetItemCommand } from '@aws-sdk/client-dynamodb';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import type { EngineSettings, LegacyDecision, LegacyLookup, MigrationSource } from '../engine/index.js';
import { InvalidOptionsError, JournalUnavailableError } from '../core/index.js';
import {
  resolvePowertoolsSource,
  type PowertoolsMigrationOptions,
  type PowertoolsSearch,
  type PowertoolsSource,
} from './powertools-options.js';
import { createHash } from 'node:crypto';

/** Status values `@aws-lambda-powertools/idempotency` writes (`EXPIRED` is computed, never stored). */
const PowertoolsStatus = { inProgress: 'INPROGRESS', completed: 'COMPLETED' } as const;

/**
 * Reads the record `@aws-lambda-powertools/idempotency` 2.x holds for an event and decides
 * as Powertools would, in its order: a record past `expiration` (epoch seconds), or in
 * progress past `in_progress_expiration` (epoch milliseconds), is one Powertools would claim
 * again, so the handler runs; then a differing validation hash is a mismatch; then a completed
 * record replays its `data` and a live one is in progress.
 *
 * @example
 * const reader = new PowertoolsRecordReader(source, Date.now, loadPowertoolsSearch('test', source));
 * const decision = await reader.decide(event, () => calls++);
 */
export class PowertoolsRecordReader {
  constructor(
    private readonly source: PowertoolsSource,
    private readonly clock: () => number,
    /** Settles after the factory returns; a rejection (an expression that does not compile) is thrown by every lookup. */
    private readonly searching: Promise<PowertoolsSearch>,
  ) {
    // Answered by the first lookup, never as an unhandled rejection of the process.
    searching.catch(() => undefined);
  }

  /** One consistent `GetItem` while the window is open and the event has a Powertools key; none otherwise. */
  async decide(event: unknown, countCall: () => void): Promise<LegacyDecision> {
    const { source } = this;
    const nowEpochMs = this.clock();
    if (source.untilEpochMs !== undefined && nowEpochMs >= source.untilEpochMs)
      return { kind: 'none', reason: 'window-closed' };
    const search = await this.searching;
    const id = powertoolsRecordId(event, source, search);
    if (id === undefined) return { kind: 'none', reason: 'no-key' };
    countCall();
    const item = await this.read(id);
    if (!item) return { kind: 'none', reason: 'absent' };
    const { attributes } = source;
    const expiration = item[attributes.expiration];
    if (typeof expiration === 'number' && nowEpochMs / 1000 > expiration) return { kind: 'none', reason: 'expired' };
    const status = item[attributes.status];
    const inProgressUntil = item[attributes.inProgressExpiration];
    if (status === PowertoolsStatus.inProgress && typeof inProgressUntil === 'number' && inProgressUntil < nowEpochMs) {
      return { kind: 'none', reason: 'in-progress-expired' };
    }
    const storedHash = item[attributes.validation];
    // A record without a hash was written while Powertools did not validate: it replays, as Powertools then would.
    if (
      source.payloadValidationJmesPath !== undefined &&
      typeof storedHash === 'string' &&
      storedHash !== powertoolsPayloadHash(event, source, search)
    ) {
      return { kind: 'mismatch' };
    }
    if (status === PowertoolsStatus.completed) return { kind: 'replay', response: item[attributes.data] };
    // In progress, or a status Powertools never writes: nothing runs until the record expires.
    return { kind: 'in-progress' };
  }

  private async read(id: string): Promise<Record<string, unknown> | undefined> {
    const { tableName, attributes, staticPkValue } = this.source;
    const key =
      attributes.sortKey === undefined
        ? { [attributes.key]: id }
        : { [attributes.key]: staticPkValue, [attributes.sortKey]: id };
    try {
      const out = await this.source.client.send(
        new GetItemCommand({ TableName: tableName, Key: marshall(key), ConsistentRead: true }),
      );
      return out.Item ? unmarshall(out.Item) : undefined;
    } catch (error) {
      const reason = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
      throw new JournalUnavailableError(`Reading the Powertools idempotency record failed: ${reason}`, {
        cause: error,
      });
    }
  }
}

/**
 * The records `@aws-lambda-powertools/idempotency` 2.x keeps, as a guard's `migrateFrom`: while
 * the cut-over lasts, a key idemkit reserves for the first time is looked up where Powertools,
 * configured as given, holds it (one consistent `GetItem`), and a completed Powertools outcome
 * replays, a live one answers 409 and another payload 422. The options are checked here; the
 * expressions compile when the guard's factory is called.
 *
 * @throws InvalidOptionsError naming an option that is unknown or invalid
 * @example
 * import { fromPowertools } from 'idemkit/migration';
 * export const handler = middy(createPayment).use(httpIdempotency({
 *   journal,
 *   migrateFrom: fromPowertools({
 *     tableName: 'IdempotencyTable',
 *     keyPrefix: 'payments-create-payment', // the function name, unless Powertools was given a keyPrefix
 *     eventKeyJmesPath: 'powertools_json(body).[customerId, orderId]',
 *     until: new Date('2026-12-01T00:00:00Z'),
 *   }),
 * }));
 */
export function fromPowertools(options: PowertoolsMigrationOptions): MigrationSource {
  const source = resolvePowertoolsSource('fromPowertools', options);
  return Object.freeze({
    lookupFor(factory: string, settings: Pick<EngineSettings, 'clock' | 'effects'>): LegacyLookup {
      if (settings.effects === 'staged-only') {
        // A staged-only attempt reserves nothing before its handler runs, so no lookup could stop a re-run.
        throw new InvalidOptionsError(
          `${factory}: option 'migrateFrom' does not apply with effects: 'staged-only' (use the default effects during the migration)`,
        );
      }
      const reader = new PowertoolsRecordReader(source, settings.clock, loadPowertoolsSearch(factory, source));
      return (legacyEvent, countCall) => reader.decide(legacyEvent, countCall);
    },
  });
}

/**
 * Loads Powertools' JMESPath and compiles the source's expressions. Started when the factory is
 * called, so it has settled by the first request of a function that builds its guard at load; it
 * is imported on first need because only a `migrateFrom` lookup evaluates JMESPath (unbundled,
 * the package is 15 files read and compiled at every cold start).
 *
 * @throws InvalidOptionsError (as a rejection) naming the expression that does not compile
 */
export async function loadPowertoolsSearch(factory: string, source: PowertoolsSource): Promise<PowertoolsSearch> {
  const jmespath = await import('./powertools-jmespath.js');
  return jmespath.compilePowertoolsSearch(factory, source);
}

/**
 * The record id `@aws-lambda-powertools/idempotency` 2.x gives an event:
 * `<keyPrefix>#<base64 digest of JSON.stringify(deepSort(selection))>`, the selection being the
 * `eventKeyJmesPath` result (the whole event for `''`). Undefined when Powertools keeps no
 * record for the event: the selection is null (it skips such events), or evaluating the
 * expression or hashing the selection throws (it fails before writing).
 */
export function powertoolsRecordId(
  event: unknown,
  source: PowertoolsSource,
  search: PowertoolsSearch,
): string | undefined {
  try {
    const selection = source.eventKeyJmesPath === '' ? event : search(source.eventKeyJmesPath, event);
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
export function powertoolsPayloadHash(
  event: unknown,
  source: PowertoolsSource,
  search: PowertoolsSearch,
): string | undefined {
  if (source.payloadValidationJmesPath === undefined) return undefined;
  try {
    return digest(search(source.payloadValidationJmesPath, event), source.hashFunction);
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

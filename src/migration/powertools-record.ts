import { GetItemCommand } from '@aws-sdk/client-dynamodb';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import type { LegacyDecision, LegacyLookup } from '../engine/index.js';
import { JournalUnavailableError } from '../core/index.js';
import { powertoolsPayloadHash, powertoolsRecordId } from './powertools-key.js';
import { resolveMigrateFrom, type PowertoolsSource } from './powertools-options.js';

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
 * const reader = new PowertoolsRecordReader(source, Date.now);
 * const decision = await reader.decide(event, () => calls++);
 */
export class PowertoolsRecordReader {
  constructor(
    private readonly source: PowertoolsSource,
    private readonly clock: () => number,
  ) {}

  /** One consistent `GetItem` while the window is open and the event has a Powertools key; none otherwise. */
  async decide(event: unknown, countCall: () => void): Promise<LegacyDecision> {
    const { source } = this;
    const nowEpochMs = this.clock();
    if (source.untilEpochMs !== undefined && nowEpochMs >= source.untilEpochMs)
      return { kind: 'none', reason: 'window-closed' };
    const id = powertoolsRecordId(event, source);
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
      storedHash !== powertoolsPayloadHash(event, source)
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
 * The engine's `legacyLookup` for a `migrateFrom` option, validated when the factory is
 * called; undefined without one. `clock` is the guard's, so expiry reads agree with the journal's.
 */
export function legacyLookupFor(factory: string, migrateFrom: unknown, clock: () => number): LegacyLookup | undefined {
  const source = resolveMigrateFrom(factory, migrateFrom);
  if (!source) return undefined;
  const reader = new PowertoolsRecordReader(source, clock);
  return (legacyEvent, countCall) => reader.decide(legacyEvent, countCall);
}

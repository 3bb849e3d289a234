import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import {
  assertKnownOptions,
  InvalidOptionsError,
  readClient,
  readString,
  readTableName,
  required,
} from '../core/index.js';

/** Options of {@link ProjectionGuard}. */
export interface ProjectionGuardOptions {
  /** The table holding the projection (a read model built from events). */
  readonly tableName: string;
  /**
   * A `DynamoDBClient` or `DynamoDBDocumentClient`.
   * @default new DynamoDBClient({})
   */
  readonly client?: DynamoDBClient | DynamoDBDocumentClient;
  /**
   * Attribute holding the version of the last applied change (a number).
   * @default 'version'
   */
  readonly versionAttribute?: string;
}

const OPTION_NAMES = [
  'tableName',
  'client',
  'versionAttribute',
] as const satisfies readonly (keyof ProjectionGuardOptions)[];
const FACTORY = 'ProjectionGuard';

/** Defaults of {@link ProjectionGuardOptions}. */
export const DEFAULT_PROJECTION_GUARD_OPTIONS = Object.freeze({ versionAttribute: 'version' });

/**
 * Applies an event's change to a projection only when the event is newer than what the item
 * already reflects: one conditional `UpdateItem`
 * (`attribute_not_exists(version) OR version < :version`). A duplicate or out-of-order
 * (stale) event changes nothing and does not throw, so at-least-once delivery in any order
 * converges on the newest state.
 *
 * @example
 * const orders = new ProjectionGuard({ tableName: 'order-view' });
 * const applied = await orders.applyIfNewer({ orderId: 'o-1' }, event.detail.version, { status: 'shipped' });
 */
export class ProjectionGuard {
  private readonly doc: DynamoDBDocumentClient;
  private readonly tableName: string;
  private readonly versionAttribute: string;

  constructor(options: ProjectionGuardOptions) {
    assertKnownOptions(FACTORY, options, OPTION_NAMES);
    const tableName = required(FACTORY, 'tableName', readTableName(FACTORY, 'tableName', options.tableName, undefined));
    const versionAttribute = readString(
      FACTORY,
      'versionAttribute',
      options.versionAttribute,
      DEFAULT_PROJECTION_GUARD_OPTIONS.versionAttribute,
    );
    const client =
      readClient(FACTORY, 'client', options.client, 'a DynamoDBClient or DynamoDBDocumentClient') ??
      new DynamoDBClient({});
    this.doc =
      client instanceof DynamoDBDocumentClient
        ? client
        : DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });
    this.tableName = tableName;
    this.versionAttribute = versionAttribute;
  }

  /**
   * Sets `changes` and the version on the item at `key` (creating it if absent) when
   * `version` is newer than the stored one. An attribute whose value is `undefined` is removed.
   *
   * @returns true when applied; false when the item already holds this version or a newer one
   * @throws InvalidOptionsError when the version is not a finite number or `changes` touches the key or version
   */
  async applyIfNewer(
    key: Record<string, unknown>,
    version: number,
    changes: Record<string, unknown>,
  ): Promise<boolean> {
    if (typeof version !== 'number' || !Number.isFinite(version))
      throw new InvalidOptionsError('applyIfNewer() needs a finite numeric version');
    const names: Record<string, string> = { '#version': this.versionAttribute };
    const values: Record<string, unknown> = { ':version': version };
    const sets = ['#version = :version'];
    const removes: string[] = [];
    Object.entries(changes).forEach(([name, value], i) => {
      if (name === this.versionAttribute || name in key)
        throw new InvalidOptionsError(`applyIfNewer() cannot change '${name}'`);
      names[`#a${i}`] = name;
      if (value === undefined) {
        removes.push(`#a${i}`);
        return;
      }
      values[`:a${i}`] = value;
      sets.push(`#a${i} = :a${i}`);
    });
    try {
      await this.doc.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: key,
          UpdateExpression: `SET ${sets.join(', ')}${removes.length > 0 ? ` REMOVE ${removes.join(', ')}` : ''}`,
          ConditionExpression: 'attribute_not_exists(#version) OR #version < :version',
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
        }),
      );
      return true;
    } catch (error) {
      if ((error as { name?: string })?.name === 'ConditionalCheckFailedException') return false;
      throw error;
    }
  }
}

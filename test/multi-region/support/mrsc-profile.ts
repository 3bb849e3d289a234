import { ReplicatedWriteConflictException, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBJournal } from '../../../src/index.js';
import { createJournalTable, localClient } from '../../support/dynamodb.js';
import { strongConsistency } from '../../../src/entries/multi-region.js';
import { journalOperationOf, type JournalOperation } from '../../../src/entries/journal.js';

/**
 * The "MRSC profile" over DynamoDB Local, which has no global tables: client middleware that
 * refuses what a DynamoDB table with multi-Region strong consistency refuses
 * (`TransactWriteItems`, `TransactGetItems`, `UpdateTimeToLive`, each with a
 * `ValidationException`, as AWS answers an unsupported request; the exact message is ours) and
 * injects `ReplicatedWriteConflictException` (the SDK's own class) on chosen journal writes.
 * Every other request reaches the real DynamoDB Local, so conditions, reads and streams are the
 * real server's. Each "Region" is its own client and journal over one shared table: MRSC gives
 * every Region the latest version of an item, which one table gives for free.
 */

/** Commands an MRSC table refuses. */
export const MRSC_REFUSED_COMMANDS = [
  'TransactWriteItemsCommand',
  'TransactGetItemsCommand',
  'UpdateTimeToLiveCommand',
];

/** One Region of the emulated global table. */
export interface Region {
  readonly name: string;
  readonly client: DynamoDBClient;
  readonly journal: DynamoDBJournal;
  /** Commands this Region's client sent to the server, by name (refused ones included). */
  readonly sent: string[];
  /**
   * Refuses the next `count` sends of `operation` with a cross-Region write conflict; `meanwhile`
   * (once, before the first refusal) is the other Region's write that the conflict stands for.
   */
  conflictOn(operation: JournalOperation, count: number, meanwhile?: () => Promise<unknown>): void;
  /** Conflicts injected so far. */
  readonly injected: () => number;
}

/** Adds the MRSC profile to a client; returns the handles a Region needs. */
export function applyMrscProfile(client: DynamoDBClient): Pick<Region, 'sent' | 'conflictOn' | 'injected'> {
  const sent: string[] = [];
  const planned = new Map<JournalOperation, number>();
  const meanwhiles = new Map<JournalOperation, () => Promise<unknown>>();
  let injected = 0;
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const command = String(context.commandName);
      sent.push(command);
      if (MRSC_REFUSED_COMMANDS.includes(command)) {
        throw Object.assign(
          new Error(`${command.replace(/Command$/, '')} is not supported on a multi-Region strongly consistent table`),
          {
            name: 'ValidationException',
            $fault: 'client',
            $metadata: { httpStatusCode: 400 },
          },
        );
      }
      const operation = journalOperationOf(args);
      const left = operation ? (planned.get(operation) ?? 0) : 0;
      if (operation && left > 0) {
        planned.set(operation, left - 1);
        injected++;
        const meanwhile = meanwhiles.get(operation);
        meanwhiles.delete(operation);
        if (meanwhile) await meanwhile();
        throw new ReplicatedWriteConflictException({
          message: 'One or more items in this request are being modified by a request in another Region',
          $metadata: { httpStatusCode: 400 },
        });
      }
      return next(args);
    },
    // Above the SDK's retry step: the journal's own bound is what a test counts.
    { step: 'initialize', name: 'mrscProfile' },
  );
  return {
    sent,
    conflictOn: (operation, count, meanwhile) => {
      planned.set(operation, count);
      if (meanwhile) meanwhiles.set(operation, meanwhile);
    },
    injected: () => injected,
  };
}

/** Regions over one new journal table, each with its own client, clock and MRSC journal. */
export async function mrscRegions(
  names: readonly string[] = ['us-east-1', 'us-east-2', 'us-west-2'],
  clock: () => number = Date.now,
): Promise<{ tableName: string; regions: Region[] }> {
  const tableName = await createJournalTable(localClient(), 'mrsc');
  const regions = names.map((name) => {
    const client = localClient();
    const profile = applyMrscProfile(client);
    const journal = new DynamoDBJournal({ tableName, client, clock, multiRegion: strongConsistency() });
    return { name, client, journal, ...profile };
  });
  return { tableName, regions };
}

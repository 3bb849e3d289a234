import { DynamoDBJournal, type DynamoDBJournalOptions } from '../../../src/index.js';
import { strongConsistency } from '../../../src/entries/multi-region.js';
import { journalConformance } from '../../../src/journal/conformance/index.js';
import { createJournalTable, localClient } from '../../support/dynamodb.js';

/*
 * DynamoDBJournal on DynamoDB Local, in each of its modes. One table per mode, created before its
 * cases: every case writes keys and claims of its own, and every createJournal call builds a new
 * DynamoDBJournal (with the case's clock) on that table, so journals share storage the way two
 * containers share one table, and the races run one contender per journal.
 */
const client = localClient();

function onOneTable(name: string, options: Pick<DynamoDBJournalOptions, 'reservation' | 'multiRegion'> = {}) {
  let tableName = '';
  describe(name, () => {
    beforeAll(async () => {
      tableName = await createJournalTable(client, 'conformance');
    });
    journalConformance(({ clock }) => new DynamoDBJournal({ tableName, client, clock, ...options }), {
      describe,
      it,
      name: 'Journal conformance',
      sharedStorage: true,
      transactions: options.multiRegion === undefined,
    });
  });
}

onOneTable('DynamoDBJournal');
onOneTable("DynamoDBJournal({ reservation: 'read-first' })", { reservation: 'read-first' });
// DynamoDB Local has no multi-Region tables: this runs the journal's single-item writes and its refusals of transactions.
onOneTable('DynamoDBJournal({ multiRegion: strongConsistency() })', { multiRegion: strongConsistency() });

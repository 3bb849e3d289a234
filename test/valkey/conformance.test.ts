import { ValkeyJournal } from '../../src/entries/valkey.js';
import { journalConformance } from '../../src/journal/conformance/index.js';
import { startValkeyServer, type ValkeyServer } from '../support/valkey.js';

/*
 * ValkeyJournal on a real redis-server: every createJournal call builds a new journal (with the
 * case's clock) on one shared client, so journals share storage the way two containers share one
 * server, and the races run one contender per journal. No transactions: the suite checks that
 * each transactional feature is refused with a typed error instead.
 */
let server: ValkeyServer;
let client: ReturnType<ValkeyServer['client']>;
beforeAll(async () => {
  server = await startValkeyServer();
  client = server.client();
});
afterAll(() => server?.stop());

const quiet = { warn: () => undefined };
journalConformance(({ clock }) => new ValkeyJournal({ client, clock, logger: quiet }), {
  describe,
  it,
  name: 'ValkeyJournal conformance',
  sharedStorage: true,
  transactions: false,
});

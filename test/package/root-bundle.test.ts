/**
 * The root entry holds what every guard needs: a guarded HTTP handler that imports
 * `httpIdempotency` and `DynamoDBJournal` from it bundles none of the code only some users need,
 * and idemkit's own bytes in that bundle stay within the budget of scripts/size/budget.json (a
 * change that grows them by more than 2 KiB raises the budget and says why there).
 */
import { measureRootBundle, ROOT_BUNDLE_BUDGET, ROOT_BUNDLE_SLACK_BYTES } from '../../scripts/size/root-bundle.js';

/** Code with an entry of its own: a handler that does not import that entry never bundles it. */
const ONLY_SOME_USERS = [
  ['multi-Region', /^src\/(multi-region\/|journal\/(replicated-writes|single-item-completion|journal-migration)\.ts)/],
  ['the Powertools migration', /^src\/migration\//],
  ['the stream consumers', /^src\/streams\//],
  ['the outbox dispatcher and publishers', /^src\/outbox\//],
  ['the sweeper', /^src\/sweeper\//],
  ['the CLI', /^src\/cli\//],
  ['the testing helpers', /^src\/testing\//],
  ['the caller-side client', /^src\/client\/(?!idempotency-key)/],
] as const;

describe('the bundle of a guarded HTTP handler importing from the root entry', () => {
  let measured: Awaited<ReturnType<typeof measureRootBundle>>;
  beforeAll(async () => {
    measured = await measureRootBundle();
  }, 60_000);

  it.each(ONLY_SOME_USERS)('holds no module of %s', (_part, pattern) => {
    expect(Object.keys(measured.ownModules).filter((path) => pattern.test(path))).toEqual([]);
  });

  it('keeps idemkit’s own bytes within the budget', () => {
    const budget = ROOT_BUNDLE_BUDGET.ownBytes as number;
    const over = measured.ownBytes - budget;
    expect({ ownBytes: measured.ownBytes, overBudgetBytes: Math.max(0, over - ROOT_BUNDLE_SLACK_BYTES) }).toEqual({
      ownBytes: measured.ownBytes,
      overBudgetBytes: 0,
    });
  });

  it('has a budget that says why it is what it is', () => {
    expect(ROOT_BUNDLE_BUDGET.why.length).toBeGreaterThan(0);
  });
});

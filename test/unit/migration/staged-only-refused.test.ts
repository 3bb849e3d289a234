import { httpIdempotency, InvalidOptionsError, makeIdempotent, MemoryJournal } from '../../../src/index.js';
import { fromPowertools } from '../../../src/entries/migration.js';

const migrateFrom = fromPowertools({
  tableName: 'idempotency',
  keyPrefix: 'payments.handler',
  eventKeyJmesPath: 'headers."idempotency-key"',
});

describe('migrateFrom with staged-only effects', () => {
  it('is refused by httpIdempotency when the guard is created, since nothing is reserved before the handler runs', () => {
    expect(() => httpIdempotency({ journal: new MemoryJournal(), effects: 'staged-only', migrateFrom })).toThrow(
      InvalidOptionsError,
    );
  });

  it('is refused by makeIdempotent when the function is wrapped', () => {
    expect(() =>
      makeIdempotent(async () => 1, {
        journal: new MemoryJournal(),
        operation: 'op',
        key: () => 'k',
        effects: 'staged-only',
        migrateFrom,
      }),
    ).toThrow(/'migrateFrom' does not apply with effects: 'staged-only'/);
  });
});

describe('migrateFrom in the form of idemkit 0.1', () => {
  it('is refused when the guard is created, with the one-line rewrite', () => {
    const older = { powertools: { tableName: 'idempotency', keyPrefix: 'fn', eventKeyJmesPath: 'body' } };

    expect(() => httpIdempotency({ journal: new MemoryJournal(), migrateFrom: older as never })).toThrow(
      'write migrateFrom: fromPowertools(options) for migrateFrom: { powertools: options }',
    );
  });
});

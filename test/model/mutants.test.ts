import { join } from 'node:path';
import { LIMITS, MUTANTS, PROPERTIES } from '../../scripts/model/checks.js';
import { assertToolsPresent, runSpin } from '../../scripts/model/spin.js';

/*
 * The model's properties are only worth something if they catch a broken protocol: each mutant
 * drops one guard (or adds a known bug) and spin must find a counterexample that violates one of
 * the properties. CI installs spin; without it these tests fail rather than pass unchecked.
 */
const MODEL = join(__dirname, '../../model/journal.pml');
const SPIN_TIMEOUT_MS = 300_000;
const propertyNames = PROPERTIES.map((property) => property.name);

beforeAll(async () => {
  await assertToolsPresent();
}, SPIN_TIMEOUT_MS);

describe('each mutant of the journal protocol yields a counterexample', () => {
  it.each(MUTANTS.map((mutant) => [mutant.name, mutant] as const))(
    '%s',
    async (_name, mutant) => {
      const result = await runSpin(MODEL, mutant);

      expect(result.errors).toBeGreaterThan(0);
      expect(propertyNames).toContain(result.property);
      expect(result.trail).toMatch(/assertion violated/);
    },
    SPIN_TIMEOUT_MS,
  );
});

describe('what the protocol does not promise, shown by spin', () => {
  it.each(LIMITS.map((limit) => [limit.name, limit] as const))(
    '%s',
    async (_name, limit) => {
      const result = await runSpin(MODEL, limit);

      expect(result.violation).toBe('acceptance cycle');
    },
    SPIN_TIMEOUT_MS,
  );
});

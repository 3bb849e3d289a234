import { join } from 'node:path';
import { LIMITS, MUTANTS, PROPERTIES } from '../../scripts/model/checks.js';
import { assertToolsPresent, missingModelTools, runSpin } from '../../scripts/model/spin.js';

/*
 * The model's properties are only worth something if they catch a broken protocol: each mutant
 * drops one guard (or adds a known bug) and spin must find a counterexample that violates one of
 * the properties. On a machine without spin or gcc these tests are skipped, saying how to install
 * them; under CI (`CI` set, as .ci/run sets it after installing both) they run, and fail without them.
 */
const MODEL = join(__dirname, '../../model/journal.pml');
const SPIN_TIMEOUT_MS = 300_000;
const propertyNames = PROPERTIES.map((property) => property.name);
const underCi = (process.env.CI ?? '') !== '' && process.env.CI !== 'false';
const missing = underCi ? undefined : missingModelTools();
const describeWithTools = missing === undefined ? describe : describe.skip;

if (missing !== undefined) {
  console.warn(`Skipping the protocol model's mutants: ${missing}`);
  it.skip(`needs spin and gcc: ${missing}`, () => undefined);
}

beforeAll(async () => {
  if (missing === undefined) await assertToolsPresent();
}, SPIN_TIMEOUT_MS);

describeWithTools('each mutant of the journal protocol yields a counterexample', () => {
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

describeWithTools('what the protocol does not promise, shown by spin', () => {
  it.each(LIMITS.map((limit) => [limit.name, limit] as const))(
    '%s',
    async (_name, limit) => {
      const result = await runSpin(MODEL, limit);

      expect(result.violation).toBe('acceptance cycle');
    },
    SPIN_TIMEOUT_MS,
  );
});

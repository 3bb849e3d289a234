import { availableParallelism } from 'node:os';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { MUTANTS, PROPERTIES } from './checks.js';
import { assertToolsPresent, runSpin, type SpinCheck, type SpinResult } from './spin.js';

/**
 * `npm run verify:model`: checks every property of the journal protocol with spin, exhaustively,
 * and checks that every mutant is caught. Prints one line per property (states, `errors: 0`) and
 * per mutant; exits 0 only when every property holds over a complete search and every mutant
 * yields a counterexample.
 *
 * Runs two searches at a time (`IDEMKIT_SPIN_JOBS` to change); each needs about 1.5 GB. Names given
 * as arguments run only those properties and mutants (`npm run verify:model -- multi-region
 * sweeper-ignores-lease`); an unknown name fails the run.
 */
const modelPath = resolve(dirname(fileURLToPath(import.meta.url)), '../../model/journal.pml');
const jobs = Math.max(1, Number(process.env.IDEMKIT_SPIN_JOBS ?? Math.min(2, availableParallelism())));

async function inParallel<T>(
  checks: readonly SpinCheck[],
  each: (check: SpinCheck, result: SpinResult) => T,
): Promise<T[]> {
  const results: T[] = new Array(checks.length);
  let next = 0;
  const worker = async () => {
    while (next < checks.length) {
      const index = next++;
      results[index] = each(checks[index]!, await runSpin(modelPath, checks[index]!));
    }
  };
  await Promise.all(Array.from({ length: jobs }, worker));
  return results;
}

const count = (n: number) => (Number.isNaN(n) ? '?' : n.toLocaleString('en-US'));

/** The checks named on the command line, or all of them. */
function selected<T extends SpinCheck>(checks: readonly T[], names: readonly string[]): readonly T[] {
  return names.length === 0 ? checks : checks.filter((check) => names.includes(check.name));
}

async function main(): Promise<number> {
  const names = process.argv.slice(2);
  const unknown = names.filter((name) => ![...PROPERTIES, ...MUTANTS].some((check) => check.name === name));
  if (unknown.length > 0) throw new Error(`no property or mutant named ${unknown.join(', ')}`);
  await assertToolsPresent();
  const properties = selected(PROPERTIES, names);
  const mutants = selected(MUTANTS, names);
  const width = Math.max(...[...properties, ...mutants].map((check) => check.name.length));
  const started = Date.now();
  const held = await inParallel(properties, (check, result) => {
    const ok = result.errors === 0 && result.complete;
    const search = result.complete ? 'exhaustive' : 'INCOMPLETE search';
    console.log(
      `property ${check.name.padEnd(width)}  ${count(result.states).padStart(11)} states  errors: ${result.errors}  ${search}  ${result.seconds.toFixed(1)} s`,
    );
    if (result.errors > 0) console.log(`  ${result.violation ?? 'error'}\n${indent(result.trail ?? result.output)}`);
    return ok;
  });
  const caught = await inParallel(mutants, (check, result) => {
    const ok = result.errors > 0 && result.property !== undefined;
    const verdict = ok
      ? `caught by ${result.property}`
      : `NOT CAUGHT (errors: ${result.errors}${result.violation ? `, ${result.violation}` : ''})`;
    console.log(`mutant   ${check.name.padEnd(width)}  ${verdict}  (${count(result.states)} states searched)`);
    return ok;
  });
  const failed = held.filter((ok) => !ok).length + caught.filter((ok) => !ok).length;
  console.log(
    `${failed === 0 ? 'model verified' : `${failed} check(s) failed`} in ${((Date.now() - started) / 1000).toFixed(0)} s`,
  );
  return failed === 0 ? 0 : 1;
}

function indent(text: string): string {
  return text
    .split('\n')
    .map((line) => `    ${line}`)
    .join('\n');
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(2);
  },
);

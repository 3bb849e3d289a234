/**
 * `npm run simulate:hot-key:validate`: checks the simulation's per-call figures against the
 * real guard on DynamoDB Local. For each `--callers` count it sends that many callers per
 * container (concurrent, or within `--caller-spread-ms`) of one new key through `makeIdempotent`
 * over `DynamoDBJournal` (one journal instance per container: single-flight and the lease
 * memory are kept per journal instance), counts
 * the journal calls, their capacity units, the handler's runs and every answer, runs the
 * simulation of the same storm (scenario `--scenario`, with the round trips just measured), and
 * prints both side by side (per-call figures equal, counts that hang on timing within three
 * tenths of the callers: see `checksOf`). Starts its own DynamoDB Local on 127.0.0.1 unless
 * given `--endpoint`, and stops it by PID. Exits 0 when every check holds, 1 otherwise, 2 when
 * a run could not be made.
 *
 * Usage: npm run simulate:hot-key:validate -- [--containers 1] [--callers 10,50] [--scenario 3b]
 *   [--caller-spread-ms 0] [--handler-ms 500]
 */
import { Command, InvalidArgumentError } from 'commander';
import { startDynamoDBLocal, type DynamoDBLocal } from '../../src/testing/index.js';
import { checksOf, renderValidation, validateAgainstDynamoDBLocal, type ValidationResult } from './validation.js';

const positiveInteger = (name: string) => (value: string) => {
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 1) throw new InvalidArgumentError(`${name} must be a positive integer`);
  return parsed;
};

const opts = new Command('simulate:hot-key:validate')
  .description("Compare the hot-key simulation's per-call figures with the real guard on DynamoDB Local")
  .option('--containers <n>', 'containers (each its own client, journal and guard)', positiveInteger('--containers'), 1)
  .option(
    '--callers <list>',
    'concurrent callers per container, one run each',
    (value: string) => value.split(',').map((part) => positiveInteger('--callers')(part.trim())),
    [10, 50],
  )
  .option('--handler-ms <n>', 'how long the handler runs', positiveInteger('--handler-ms'), 500)
  .option('--seed <n>', 'seed of the callers’ jitter and of the simulation', positiveInteger('--seed'), 1)
  .option('--scenario <id>', 'simulated scenario the guard is expected to match (3b: what 0.2 ships)', '3b')
  .option(
    '--caller-spread-ms <n>',
    'a container’s callers send their first attempts within this long of each other (0: all at once)',
    (value: string) => {
      const parsed = Number(value);
      if (!Number.isFinite(parsed) || parsed < 0) throw new InvalidArgumentError('--caller-spread-ms must be ≥ 0');
      return parsed;
    },
    0,
  )
  .option('--endpoint <url>', 'an already running DynamoDB Local (default: start one)')
  .parse()
  .opts<{
    containers: number;
    callers: number[];
    handlerMs: number;
    seed: number;
    scenario: string;
    callerSpreadMs: number;
    endpoint?: string;
  }>();

let server: DynamoDBLocal | undefined;
let exitCode = 0;
try {
  if (opts.endpoint === undefined) server = await startDynamoDBLocal();
  const endpoint = opts.endpoint ?? server!.endpoint;
  const results: ValidationResult[] = [];
  for (const callersPerContainer of opts.callers) {
    const result = await validateAgainstDynamoDBLocal({
      endpoint,
      containers: opts.containers,
      callersPerContainer,
      handlerMs: opts.handlerMs,
      seed: opts.seed,
      scenario: opts.scenario,
      callerSpreadMs: opts.callerSpreadMs,
    });
    results.push(result);
    console.log(`${renderValidation(result)}\n`);
  }
  const mismatched = results.filter((result) => checksOf(result).some((check) => !check.holds));
  if (mismatched.length > 0) exitCode = 1;
  console.log(mismatched.length === 0 ? 'every check holds' : `${mismatched.length} run(s) differ`);
} catch (error) {
  exitCode = 2;
  console.error(error);
} finally {
  await server?.stop();
}
process.exit(exitCode);

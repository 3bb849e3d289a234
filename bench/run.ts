import { readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { FULL_PLAN, QUICK_PLAN } from './plan.js';
import {
  CAPACITY_SECTION,
  COLD_START_SECTION,
  HOT_KEY_SECTION,
  sectionOf,
  VALKEY_CACHE_SECTION,
  VALKEY_JOURNAL_SECTION,
} from './report-capacity.js';
import { checkTargets, renderReport } from './report.js';
import { startDynamoDBLocal } from '../src/testing/index.js';
import { runSuite } from './suite.js';

/**
 * Compares idemkit with the Powertools idempotency utility on one DynamoDB Local and writes
 * bench/RESULTS.md and bench/results.json. `--quick` runs every path briefly and writes nothing.
 *
 * @example npx tsx bench/run.ts
 */
const here = dirname(fileURLToPath(import.meta.url));
const quick = process.argv.includes('--quick');
const log = (line: string) => process.stderr.write(`[bench] ${line}\n`);

log(`starting DynamoDB Local${quick ? ' (quick run)' : ''}`);
const server = await startDynamoDBLocal();
log(`DynamoDB Local pid ${server.pid} at ${server.endpoint}`);
const stopOnSignal = (signal: NodeJS.Signals) => {
  log(`${signal}: stopping DynamoDB Local (pid ${server.pid})`);
  void server.stop().finally(() => process.exit(130));
};
process.once('SIGINT', stopOnSignal);
process.once('SIGTERM', stopOnSignal);

let exitCode = 0;
try {
  const results = await runSuite(server.endpoint, quick ? QUICK_PLAN : FULL_PLAN, { root: join(here, '..'), log });
  for (const t of checkTargets(results)) log(`${t.met ? 'met    ' : 'NOT MET'} ${t.target}: ${t.measured}`);
  if (quick) {
    log('quick run: RESULTS.md and results.json left as they are');
  } else {
    await writeFile(join(here, 'results.json'), `${JSON.stringify(results, null, 2)}\n`);
    // Sections measured apart (capacity: deterministic; cold start and per-request work: separate processes): keep them.
    const previous = await readFile(join(here, 'RESULTS.md'), 'utf8');
    const kept = [COLD_START_SECTION, CAPACITY_SECTION, HOT_KEY_SECTION, VALKEY_CACHE_SECTION, VALKEY_JOURNAL_SECTION]
      .map((markers) => sectionOf(previous, markers))
      .filter(Boolean);
    await writeFile(join(here, 'RESULTS.md'), `${[renderReport(results).trimEnd(), ...kept].join('\n\n')}\n`);
    log('wrote bench/RESULTS.md and bench/results.json');
  }
} catch (error) {
  exitCode = 1;
  log(`failed: ${(error as Error).stack ?? String(error)}`);
} finally {
  await server.stop();
  log(`stopped DynamoDB Local (pid ${server.pid})`);
}
process.exit(exitCode);

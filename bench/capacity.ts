import { readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startDynamoDBLocal } from '../src/testing/index.js';
import { renderCapacity, replaceSection, CAPACITY_SECTION } from './report-capacity.js';
import { measureCapacity } from './scenarios/capacity.js';

/**
 * Bills every situation in DynamoDB capacity units for Powertools and idemkit's modes and writes
 * bench/capacity.json and the capacity section of bench/RESULTS.md. Deterministic: the units
 * depend on item sizes, not on the machine, so it runs apart from the timed bench.
 *
 * @example npm run bench:capacity
 */
const here = dirname(fileURLToPath(import.meta.url));
const log = (line: string) => process.stderr.write(`[capacity] ${line}\n`);

const server = await startDynamoDBLocal();
log(`DynamoDB Local pid ${server.pid} at ${server.endpoint}`);
let exitCode = 0;
try {
  const result = await measureCapacity(server.endpoint);
  await writeFile(join(here, 'capacity.json'), `${JSON.stringify(result, null, 2)}\n`);
  const resultsFile = join(here, 'RESULTS.md');
  const markdown = renderCapacity(result);
  await writeFile(resultsFile, replaceSection(await readFile(resultsFile, 'utf8'), CAPACITY_SECTION, markdown));
  log('wrote bench/capacity.json and the capacity section of bench/RESULTS.md');
} catch (error) {
  exitCode = 1;
  log(`failed: ${(error as Error).stack ?? String(error)}`);
} finally {
  await server.stop();
  log(`stopped DynamoDB Local (pid ${server.pid})`);
}
process.exit(exitCode);

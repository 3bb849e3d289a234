import { build, type Metafile } from 'esbuild';
import { spawn } from 'node:child_process';
import { callgrindInstructions } from './harness/callgrind.js';
import { mkdir, rm, stat, writeFile } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { median } from './harness/stats.js';
import { HANDLER_BUNDLE_OPTIONS } from './scenarios/bundle.js';

/**
 * Where the cold start goes: four esbuild bundles with the AWS SDK inside (a bare handler with
 * the SDK client; idemkit; Powertools idempotency alone; Powertools idempotency with its Logger
 * and Metrics middleware), each imported in a fresh node process many times, alternating, and
 * (with `--callgrind`) the instructions of one import of each under valgrind, which load on the
 * machine does not change. Writes bench/cold-start.json and prints a report.
 *
 * @example npx tsx bench/cold-start.ts --imports 41 --callgrind
 */
const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..');
const OUT_DIR = join(root, 'node_modules', '.cache', `idemkit-cold-start-${process.pid}`);

/** The four set-ups, each a handler module in bench/fixtures. */
export const COLD_SETUPS = {
  bare: { title: 'bare handler + SDK client (Middy, DynamoDBClient)', entry: 'bench/fixtures/bare-handler.ts' },
  idemkit: { title: 'idemkit `httpIdempotency`', entry: 'bench/fixtures/idemkit-handler.ts' },
  powertools: { title: 'Powertools idempotency alone', entry: 'bench/fixtures/powertools-handler.ts' },
  powertoolsObserved: {
    title: 'Powertools idempotency + Logger + Metrics',
    entry: 'bench/fixtures/powertools-observed-handler.ts',
  },
} as const;
/** One of {@link COLD_SETUPS}. */
export type ColdSetup = keyof typeof COLD_SETUPS;
const SETUPS = Object.keys(COLD_SETUPS) as ColdSetup[];

function argument(name: string, fallback: number): number {
  const index = process.argv.indexOf(name);
  return index === -1 ? fallback : Number(process.argv[index + 1]);
}

async function bundle(setup: ColdSetup): Promise<{ file: string; metafile: Metafile }> {
  const file = join(OUT_DIR, `${setup}.mjs`);
  const out = await build({
    entryPoints: [COLD_SETUPS[setup].entry],
    absWorkingDir: root,
    outfile: file,
    ...HANDLER_BUNDLE_OPTIONS,
    metafile: true,
  });
  return { file, metafile: out.metafile };
}

/** Bytes in the output per package (idemkit's own code per `src/` folder). */
function bytesByOrigin(metafile: Metafile): Record<string, number> {
  const bytes = new Map<string, number>();
  for (const output of Object.values(metafile.outputs)) {
    for (const [path, input] of Object.entries(output.inputs)) {
      const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path);
      const own = /^src\/([^/]+)/.exec(path);
      const name = pkg ? pkg[1] : own ? `idemkit src/${own[1]}` : 'handler';
      bytes.set(name, (bytes.get(name) ?? 0) + input.bytesInOutput);
    }
  }
  return Object.fromEntries([...bytes].sort((a, b) => b[1] - a[1]));
}

const ENV = {
  PATH: process.env.PATH,
  AWS_REGION: 'us-east-1',
  POWERTOOLS_LOG_LEVEL: 'SILENT',
  POWERTOOLS_METRICS_DISABLED: 'true',
};

function importScript(file: string): string {
  return `const t = performance.now(); await import(${JSON.stringify(pathToFileURL(file).href)}); process.stdout.write(String(performance.now() - t));`;
}

/** Milliseconds of `await import(bundle)` measured inside a fresh node process. */
function coldImport(file: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--no-warnings', '--input-type=module', '-e', importScript(file)], {
      env: ENV,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    let errors = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (errors += chunk));
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve(Number(output)) : reject(new Error(errors))));
  });
}

/** Instructions of a whole node process that imports `file`, counted by valgrind's callgrind. */
function instructions(file: string): number {
  return callgrindInstructions(['--input-type=module', '-e', importScript(file)], { env: ENV });
}

const KIB = 1024;
const fixed = (value: number, digits = 1) => value.toFixed(digits);

async function main(): Promise<void> {
  const imports = argument('--imports', 31);
  const callgrindRuns = process.argv.includes('--callgrind') ? argument('--callgrind', 1) || 1 : 0;
  await rm(OUT_DIR, { recursive: true, force: true });
  await mkdir(OUT_DIR, { recursive: true });
  const load = loadavg();
  try {
    const built = {} as Record<ColdSetup, { file: string; metafile: Metafile; bytes: number }>;
    for (const setup of SETUPS) {
      const { file, metafile } = await bundle(setup);
      built[setup] = { file, metafile, bytes: (await stat(file)).size };
    }
    const samples = Object.fromEntries(SETUPS.map((s) => [s, [] as number[]])) as Record<ColdSetup, number[]>;
    for (let round = 0; round < imports; round++) {
      // Rotate the order every round, so each set-up takes each position alike.
      const order = SETUPS.map((_, i) => SETUPS[(i + round) % SETUPS.length]);
      for (const setup of order) samples[setup].push(await coldImport(built[setup].file));
    }
    const medians = Object.fromEntries(SETUPS.map((s) => [s, median(samples[s])])) as Record<ColdSetup, number>;
    const addedPerRound = (setup: ColdSetup) => median(samples[setup].map((ms, i) => ms - samples.bare[i]));
    const added = Object.fromEntries(SETUPS.map((s) => [s, addedPerRound(s)])) as Record<ColdSetup, number>;
    const counted: Partial<Record<ColdSetup, number>> = {};
    if (callgrindRuns > 0) {
      for (const setup of SETUPS) {
        const counts: number[] = [];
        for (let i = 0; i < callgrindRuns; i++) counts.push(instructions(built[setup].file));
        counted[setup] = median(counts);
      }
    }
    const result = {
      measuredAt: new Date().toISOString(),
      loadAverage: load.map((l) => Number(l.toFixed(2))),
      loadAverageAfter: loadavg().map((l) => Number(l.toFixed(2))),
      node: process.version,
      imports,
      setups: Object.fromEntries(
        SETUPS.map((s) => [
          s,
          {
            title: COLD_SETUPS[s].title,
            bytes: built[s].bytes,
            addedBytes: built[s].bytes - built.bare.bytes,
            importMedianMs: Number(fixed(medians[s], 2)),
            addedImportMs: Number(fixed(added[s], 2)),
            instructions: counted[s],
            addedInstructions: counted[s] !== undefined ? counted[s]! - counted.bare! : undefined,
            bytesByOrigin: bytesByOrigin(built[s].metafile),
          },
        ]),
      ),
    };
    await writeFile(join(here, 'cold-start.json'), `${JSON.stringify(result, null, 2)}\n`);
    const idemkitAdded = { ms: added.idemkit, bytes: built.idemkit.bytes - built.bare.bytes };
    const ratio = (a: number, b: number) => `${fixed(a / b, 2)}×`;
    const lines = [
      `load average ${result.loadAverage.join(' / ')} → ${result.loadAverageAfter.join(' / ')}, ${imports} imports each`,
      ...SETUPS.map(
        (s) =>
          `${s.padEnd(19)} ${fixed(built[s].bytes / KIB)} KiB (+${fixed((built[s].bytes - built.bare.bytes) / KIB)})` +
          `  import median ${fixed(medians[s])} ms (+${fixed(added[s])} ms per round)` +
          (counted[s] !== undefined
            ? `  ${fixed(counted[s]! / 1e6)} M instr (+${fixed((counted[s]! - counted.bare!) / 1e6)} M)`
            : ''),
      ),
      `idemkit added import ÷ Powertools+Logger+Metrics added: ${ratio(idemkitAdded.ms, added.powertoolsObserved)} (target ≤ 0.9×)`,
      `idemkit added import ÷ Powertools alone added: ${ratio(idemkitAdded.ms, added.powertools)} (target ≤ 1.5×)`,
      `idemkit bundle ÷ Powertools+Logger+Metrics bundle: ${ratio(built.idemkit.bytes, built.powertoolsObserved.bytes)} (target ≤ 1.0×)`,
      `idemkit added bytes ÷ Powertools+Logger+Metrics added: ${ratio(idemkitAdded.bytes, built.powertoolsObserved.bytes - built.bare.bytes)}`,
    ];
    if (callgrindRuns > 0) {
      lines.push(
        `callgrind added instructions, idemkit ÷ Powertools+Logger+Metrics: ${ratio(counted.idemkit! - counted.bare!, counted.powertoolsObserved! - counted.bare!)}; ÷ Powertools alone: ${ratio(counted.idemkit! - counted.bare!, counted.powertools! - counted.bare!)}`,
      );
    }
    process.stdout.write(`${lines.join('\n')}\n`);
    process.stdout.write(`idemkit bytes by origin: ${JSON.stringify(result.setups.idemkit.bytesByOrigin)}\n`);
  } finally {
    await rm(OUT_DIR, { recursive: true, force: true });
  }
}

await main();

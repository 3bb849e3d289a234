import { build } from 'esbuild';
import { spawn } from 'node:child_process';
import { mkdir, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { alternate } from './harness/rounds.js';
import { median } from './harness/stats.js';

/**
 * What `NODE_OPTIONS=--enable-source-maps` costs a cold start: the guarded payments handler
 * bundled as `IdemkitFunction` bundles it (ESM, AWS SDK inside) three ways — minified with an
 * external source map and the flag (the former default), the same without the flag, and
 * unminified without a map (readable stack traces, no map to parse) — each loaded in fresh Node
 * processes in alternating order. Reports the median of the import, of the first stack trace
 * that crosses the bundle (when Node maps frames back to sources) and of the whole process.
 *
 * @example npx tsx bench/source-maps.ts --rounds 30
 */
const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const roundsFlag = process.argv.indexOf('--rounds');
const rounds = roundsFlag > 0 ? Number(process.argv[roundsFlag + 1]) : 30;
const outDir = join(root, 'node_modules', '.cache', `idemkit-source-maps-${process.pid}`);
const REQUIRE_BANNER = "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);";

const VARIANTS = {
  'minified + map, --enable-source-maps': { minify: true, flags: ['--enable-source-maps'] },
  'minified + map, no flag': { minify: true, flags: [] },
  'unminified, no map': { minify: false, flags: [] },
} as const;
type Variant = keyof typeof VARIANTS;

interface Sample {
  readonly importMs: number;
  readonly stackMs: number;
  readonly processMs: number;
}

await rm(outDir, { recursive: true, force: true });
await mkdir(outDir, { recursive: true });
try {
  const entry = join(outDir, 'entry.ts');
  // A frame inside the bundle, so formatting the stack has something to map.
  await writeFile(
    entry,
    `export { handler } from '${join(root, 'bench/fixtures/idemkit-handler.ts')}';\nexport function fail(): never { throw new Error('mapped?'); }\n`,
  );
  const bundles = {} as Record<Variant, string>;
  for (const [variant, { minify }] of Object.entries(VARIANTS) as Array<[Variant, (typeof VARIANTS)[Variant]]>) {
    bundles[variant] = join(outDir, minify ? 'minified' : 'unminified', 'index.mjs');
    if (variant !== 'minified + map, no flag') await bundleHandler(entry, bundles[variant], minify);
  }
  const samples = Object.fromEntries(Object.keys(VARIANTS).map((variant) => [variant, [] as Sample[]])) as Record<
    Variant,
    Sample[]
  >;
  await alternate(Object.keys(VARIANTS) as Variant[], rounds, async (variant) => {
    samples[variant].push(await coldStart(bundles[variant], VARIANTS[variant].flags));
  });
  const kib = async (file: string) => `${((await stat(file)).size / 1024).toFixed(0)} KiB`;
  const minified = bundles['minified + map, no flag'];
  console.log(
    `minified ${await kib(minified)} + map ${await kib(`${minified}.map`)}, unminified ${await kib(bundles['unminified, no map'])}; ` +
      `${rounds} rounds per variant, Node ${process.version}\n`,
  );
  const variants = Object.keys(VARIANTS) as Variant[];
  console.log(`| median | ${variants.join(' | ')} |\n|---|${variants.map(() => '---').join('|')}|`);
  const row = (name: string, pick: (sample: Sample) => number) =>
    `| ${name} | ${variants.map((variant) => `${median(samples[variant].map(pick)).toFixed(1)} ms`).join(' | ')} |`;
  console.log(row('import of the bundle', (sample) => sample.importMs));
  console.log(row('first stack trace through the bundle', (sample) => sample.stackMs));
  console.log(row('whole process (start, import, stack, exit)', (sample) => sample.processMs));
} finally {
  await rm(outDir, { recursive: true, force: true });
}

async function bundleHandler(entry: string, outfile: string, minify: boolean): Promise<void> {
  await build({
    entryPoints: [entry],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node22',
    mainFields: ['module', 'main'],
    minify,
    sourcemap: minify,
    banner: { js: REQUIRE_BANNER },
    logLevel: 'silent',
  });
}

function coldStart(bundle: string, flags: readonly string[]): Promise<Sample> {
  const script = [
    'const t0 = performance.now();',
    `const m = await import(${JSON.stringify(pathToFileURL(bundle).href)});`,
    'const t1 = performance.now();',
    'try { m.fail(); } catch (error) { if (!String(error.stack).includes("at ")) throw error; }',
    'process.stdout.write(JSON.stringify({ importMs: t1 - t0, stackMs: performance.now() - t1 }));',
  ].join('\n');
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, [...flags, '--no-warnings', '--input-type=module', '-e', script], {
      env: {
        PATH: process.env.PATH,
        AWS_REGION: 'us-east-1',
        POWERTOOLS_LOG_LEVEL: 'SILENT',
        POWERTOOLS_METRICS_DISABLED: 'true',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    let errors = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (errors += chunk));
    child.on('error', reject);
    child.on('exit', (code) => {
      if (code !== 0) reject(new Error(`cold start failed (${code}): ${errors}`));
      else resolve({ ...JSON.parse(output), processMs: performance.now() - started });
    });
  });
}

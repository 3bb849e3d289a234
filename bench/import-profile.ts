import { build } from 'esbuild';
import { spawnSync } from 'node:child_process';
import { mkdir, readdir, readFile, rm } from 'node:fs/promises';
import { SourceMap } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { HANDLER_BUNDLE_OPTIONS } from './scenarios/bundle.js';

/**
 * Where one bundle's cold import spends its time, per package (idemkit's own code per `src/`
 * folder): bundles a fixture with a source map, imports it under `node --cpu-prof` several
 * times and sums the sampled self time per original source.
 *
 * @example npx tsx bench/import-profile.ts bench/fixtures/idemkit-handler.ts 9
 */
const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const entry = process.argv[2] ?? 'bench/fixtures/idemkit-handler.ts';
const runs = Number(process.argv[3] ?? 9);
const outDir = join(root, 'node_modules', '.cache', `idemkit-import-profile-${process.pid}`);
const file = join(outDir, 'bundle.mjs');

type Node = { id: number; callFrame: { url: string; lineNumber: number; columnNumber: number; functionName: string } };
type Profile = { nodes: Node[]; samples: number[]; timeDeltas: number[] };

function originOf(source: string | undefined): string {
  if (!source) return '(node internals, GC, compile)';
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(source);
  if (pkg) return pkg[1];
  const own = /(?:^|\/)src\/([^/]+)/.exec(source);
  return own ? `idemkit src/${own[1]}` : source;
}

await rm(outDir, { recursive: true, force: true });
await mkdir(outDir, { recursive: true });
try {
  await build({
    entryPoints: [entry],
    absWorkingDir: root,
    outfile: file,
    ...HANDLER_BUNDLE_OPTIONS,
    sourcemap: 'external',
  });
  const map = new SourceMap(JSON.parse(await readFile(`${file}.map`, 'utf8')));
  const selfMs = new Map<string, number>();
  let totalMs = 0;
  for (let run = 0; run < runs; run++) {
    const profDir = join(outDir, `prof-${run}`);
    const script = `await import(${JSON.stringify(pathToFileURL(file).href)});`;
    spawnSync(
      process.execPath,
      ['--cpu-prof', '--cpu-prof-interval', '50', '--cpu-prof-dir', profDir, '--input-type=module', '-e', script],
      { env: { PATH: process.env.PATH, AWS_REGION: 'us-east-1', POWERTOOLS_LOG_LEVEL: 'SILENT' } },
    );
    const [name] = await readdir(profDir);
    const profile = JSON.parse(await readFile(join(profDir, name), 'utf8')) as Profile;
    const byId = new Map(profile.nodes.map((n) => [n.id, n]));
    profile.samples.forEach((id, i) => {
      const node = byId.get(id)!;
      const ms = profile.timeDeltas[i] / 1000;
      const inBundle = node.callFrame.url === pathToFileURL(file).href;
      const origin = inBundle
        ? originOf(
            (map.findEntry(node.callFrame.lineNumber, node.callFrame.columnNumber) as { originalSource?: string })
              .originalSource,
          )
        : node.callFrame.url
          ? node.callFrame.url
          : `(${node.callFrame.functionName || 'program'})`;
      selfMs.set(origin, (selfMs.get(origin) ?? 0) + ms);
      totalMs += ms;
    });
  }
  const rows = [...selfMs].sort((a, b) => b[1] - a[1]).slice(0, 30);
  process.stdout.write(`${entry}: sampled ${(totalMs / runs).toFixed(1)} ms per process (${runs} runs)\n`);
  for (const [origin, ms] of rows) process.stdout.write(`${(ms / runs).toFixed(2).padStart(8)} ms  ${origin}\n`);
} finally {
  await rm(outDir, { recursive: true, force: true });
}

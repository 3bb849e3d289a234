// What a guarded HTTP handler bundles from idemkit's root entry: the handler of the cold-start
// bench (`httpIdempotency` and `DynamoDBJournal` from the root, Middy, the AWS SDK inside), built
// with esbuild as the cold-start bench builds it, and its metafile read per module. Used by the
// root-bundle test (the budget and the modules that must stay out) and by `npm run size`.
import { build } from 'esbuild';
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

// Jest loads this as CommonJS, where `__dirname` is defined; tsx loads it as an ES module.
const here = typeof __dirname === 'string' ? __dirname : dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '../..');

/** The handler measured: the cold-start bench's idemkit fixture. */
export const ROOT_BUNDLE_ENTRY = join(root, 'bench', 'fixtures', 'idemkit-handler.ts');

/** The budget of idemkit's own bytes in that bundle, and why it is what it is. */
export const ROOT_BUNDLE_BUDGET: { readonly ownBytes: number; readonly why: readonly string[] } = JSON.parse(
  readFileSync(join(root, 'scripts', 'size', 'budget.json'), 'utf8'),
);

/** How far the bundle may grow past the budget before a change must say why (by raising it). */
export const ROOT_BUNDLE_SLACK_BYTES = 2048;

/** What {@link measureRootBundle} reads of the bundle. */
export interface RootBundle {
  readonly bundleBytes: number;
  /** idemkit's own bytes in the output (its `src/` modules). */
  readonly ownBytes: number;
  /** Bytes in the output of each of idemkit's modules, by `src/...` path. */
  readonly ownModules: Readonly<Record<string, number>>;
  /** Bytes in the output of each bundled package. */
  readonly packages: Readonly<Record<string, number>>;
}

/**
 * Bundles the handler and reads its metafile.
 *
 * @returns the bundle's bytes, idemkit's own bytes and modules (`src/...` paths with their bytes in
 *   the output), and the bytes of each package it bundles
 */
export async function measureRootBundle(): Promise<RootBundle> {
  const result = await build({
    absWorkingDir: root,
    entryPoints: [ROOT_BUNDLE_ENTRY],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    minify: true,
    write: false,
    metafile: true,
    logLevel: 'silent',
    outfile: join(root, '.cache', 'root-bundle.mjs'),
  });
  const [output] = Object.values(result.metafile.outputs);
  if (!output) throw new Error('esbuild wrote no output');
  const ownModules: Record<string, number> = {};
  const packages: Record<string, number> = {};
  for (const [path, { bytesInOutput }] of Object.entries(output.inputs)) {
    const dependency = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path);
    if (dependency) packages[dependency[1]!] = (packages[dependency[1]!] ?? 0) + bytesInOutput;
    else if (path.startsWith('src/')) ownModules[path] = bytesInOutput;
  }
  const ownBytes = Object.values(ownModules).reduce((sum, bytes) => sum + bytes, 0);
  return { bundleBytes: output.bytes, ownBytes, ownModules, packages };
}

import { build, version as esbuildVersion, type Metafile } from 'esbuild';
import { spawn } from 'node:child_process';
import { mkdir, readFile, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';
import { LIBRARIES, type LibraryName } from '../harness/contenders.js';
import { alternate } from '../harness/rounds.js';
import { median } from '../harness/stats.js';

const FIXTURES: Record<LibraryName, string> = {
  idemkit: join('bench', 'fixtures', 'idemkit-handler.ts'),
  powertools: join('bench', 'fixtures', 'powertools-handler.ts'),
};
// Inside node_modules so that bundles with the AWS SDK left external resolve it like a deployment would.
// One folder per process: the bench and its smoke test may run at the same time.
const OUT_DIR = join('node_modules', '.cache', `idemkit-bench-${process.pid}`);
// Bundled CommonJS dependencies call require(); an ESM bundle needs one (the banner AWS CDK's NodejsFunction uses).
const REQUIRE_BANNER =
  "import { createRequire as __benchCreateRequire } from 'node:module'; const require = __benchCreateRequire(import.meta.url);";

/** The esbuild options every measured handler bundle shares: one minified ES module for Node 20, able to require(). */
export const HANDLER_BUNDLE_OPTIONS = {
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  minify: true,
  logLevel: 'silent',
  banner: { js: REQUIRE_BANNER },
} as const;

/** How a handler is bundled: esbuild options beyond the shared ones. */
export const BUNDLE_VARIANTS = {
  bundled: {
    title: 'AWS SDK bundled',
    description:
      "the AWS SDK v3 inside the artifact, esbuild's default entry points for platform node (`main` before `module`)",
    external: [] as string[],
    mainFields: undefined as string[] | undefined,
  },
  esmFirst: {
    title: 'AWS SDK bundled, ESM entry points first',
    description: "as above with `mainFields: ['module', 'main']`, the setting lib/idemkit-function.ts deploys with",
    external: [] as string[],
    mainFields: ['module', 'main'],
  },
  external: {
    title: 'AWS SDK external',
    description:
      "`@aws-sdk/*` left to the Lambda runtime (CDK NodejsFunction's default on Node 18+), loaded from node_modules here",
    external: ['@aws-sdk/*'],
    mainFields: undefined as string[] | undefined,
  },
} as const;
/** One of {@link BUNDLE_VARIANTS}. */
export type BundleVariant = keyof typeof BUNDLE_VARIANTS;

/** How many cold imports to time per bundle. */
export interface BundlePlan {
  readonly coldImports: number;
}

/** Size and cold-import time of one bundle. */
export interface BundleFigures {
  readonly bytes: number;
  readonly gzipBytes: number;
  /** The largest packages in the output, bytes each. */
  readonly topPackages: ReadonlyArray<{ readonly name: string; readonly bytes: number }>;
  /** Packages (not node built-ins) left external that the bundle imports statically, so loads with it. */
  readonly externalImports: readonly string[];
  /** Median time of `await import(bundle)` in a fresh node process, and of the whole process. */
  readonly coldImportMs: number;
  readonly coldProcessMs: number;
}

/** Every variant's figures, per library. */
export interface BundleResult {
  readonly plan: BundlePlan;
  readonly esbuild: string;
  readonly variants: Record<BundleVariant, Record<LibraryName, BundleFigures>>;
}

async function bundle(
  root: string,
  library: LibraryName,
  variant: BundleVariant,
): Promise<{ file: string; metafile: Metafile }> {
  const file = join(root, OUT_DIR, variant, `${library}.mjs`);
  const { external, mainFields } = BUNDLE_VARIANTS[variant];
  const out = await build({
    entryPoints: [FIXTURES[library]],
    absWorkingDir: root,
    outfile: file,
    ...HANDLER_BUNDLE_OPTIONS,
    metafile: true,
    external: [...external],
    ...(mainFields ? { mainFields: [...mainFields] } : {}),
  });
  return { file, metafile: out.metafile };
}

function topPackages(metafile: Metafile, count: number): BundleFigures['topPackages'] {
  const bytes = new Map<string, number>();
  for (const output of Object.values(metafile.outputs)) {
    for (const [path, input] of Object.entries(output.inputs)) {
      const match = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path);
      const name = match ? match[1] : path.startsWith('src/') ? 'idemkit (src/)' : 'handler';
      bytes.set(name, (bytes.get(name) ?? 0) + input.bytesInOutput);
    }
  }
  return [...bytes]
    .sort((a, b) => b[1] - a[1])
    .slice(0, count)
    .map(([name, size]) => ({ name, bytes: size }));
}

function externalImports(metafile: Metafile): string[] {
  const found = Object.values(metafile.outputs).flatMap((output) =>
    output.imports
      .filter((entry) => entry.external && entry.kind === 'import-statement' && !entry.path.startsWith('node:'))
      .map((entry) => entry.path),
  );
  return [...new Set(found)].sort();
}

/** Imports `file` in a fresh node process; resolves with the import time measured inside it and the process time. */
function coldImport(file: string): Promise<{ importMs: number; processMs: number }> {
  const script = `const t = performance.now(); await import(${JSON.stringify(pathToFileURL(file).href)}); process.stdout.write(String(performance.now() - t));`;
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, ['--no-warnings', '--input-type=module', '-e', script], {
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
      const processMs = performance.now() - started;
      if (code !== 0) reject(new Error(`importing ${file} failed (${code}): ${errors}`));
      else resolve({ importMs: Number(output), processMs });
    });
  });
}

/**
 * Bundles the guarded payments handler of each library with esbuild (node, esm, node20,
 * minified) in every {@link BUNDLE_VARIANTS | variant} and times cold imports of each bundle.
 * `root` is the repository root.
 */
export async function measureBundles(root: string, plan: BundlePlan): Promise<BundleResult> {
  const outDir = join(root, OUT_DIR);
  await rm(outDir, { recursive: true, force: true });
  await mkdir(outDir, { recursive: true });
  try {
    const variants = {} as BundleResult['variants'];
    for (const variant of Object.keys(BUNDLE_VARIANTS) as BundleVariant[]) {
      const built = {} as Record<LibraryName, { file: string; metafile: Metafile }>;
      for (const library of LIBRARIES) built[library] = await bundle(root, library, variant);
      const imports = Object.fromEntries(
        LIBRARIES.map((name) => [name, { importMs: [] as number[], processMs: [] as number[] }]),
      );
      await alternate(LIBRARIES, plan.coldImports, async (library) => {
        const sample = await coldImport(built[library].file);
        imports[library].importMs.push(sample.importMs);
        imports[library].processMs.push(sample.processMs);
      });
      const figures = {} as Record<LibraryName, BundleFigures>;
      for (const library of LIBRARIES) {
        const content = await readFile(built[library].file);
        figures[library] = {
          bytes: (await stat(built[library].file)).size,
          gzipBytes: gzipSync(content, { level: 9 }).byteLength,
          topPackages: topPackages(built[library].metafile, 6),
          externalImports: externalImports(built[library].metafile),
          coldImportMs: median(imports[library].importMs),
          coldProcessMs: median(imports[library].processMs),
        };
      }
      variants[variant] = figures;
    }
    return { plan, esbuild: esbuildVersion, variants };
  } finally {
    await rm(outDir, { recursive: true, force: true });
  }
}

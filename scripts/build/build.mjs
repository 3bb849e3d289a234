// Builds what the package ships, into dist/ (run by `npm run build` and by `prepare`, so a
// git URL or folder install builds it too):
//   dist/esm  the library and the constructs as ES modules with declarations (tsc);
//   dist/cjs  the same modules as CommonJS (esbuild, one output file per source file, so
//             every entry shares one copy of each class), the same declarations, and a
//             package.json that makes Node and TypeScript read both as CommonJS.
// Dependencies that only ship ES modules cannot be `require`d by every CommonJS loader (Jest's
// default mode cannot), so the CommonJS build inlines them; everything else stays external.
import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, extname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const dist = join(root, 'dist');
const esm = join(dist, 'esm');
const cjs = join(dist, 'cjs');

rmSync(dist, { recursive: true, force: true });

const tsc = spawnSync(
  process.execPath,
  [join(root, 'node_modules/typescript/bin/tsc'), '-p', join(root, 'tsconfig.build.json')],
  {
    stdio: 'inherit',
  },
);
if (tsc.status !== 0) process.exit(tsc.status ?? 1);

// tsc writes every file 0644; the package's executables need their run bit, or `npx idemkit` is refused.
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const executables = Object.values(manifest.bin ?? {}).map((file) => join(root, file));
for (const file of executables) chmodSync(file, 0o755);

// The executables are ES modules only (they find their package through import.meta.url), so the
// CommonJS build leaves them out.
const esmOnlySources = new Set(executables.map((file) => file.replace(`${esm}/`, `${root}/`).replace(/\.js$/, '.ts')));
const sources = sourceFilesOf(JSON.parse(readFileSync(join(root, 'tsconfig.build.json'), 'utf8'))).filter(
  (file) => !esmOnlySources.has(file),
);
const inlined = new Set();
await build({
  absWorkingDir: root,
  entryPoints: sources,
  outdir: cjs,
  outbase: root,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  // `import()` (a peer loaded on first need, JMESPath for migrateFrom) becomes `require()`: a CommonJS
  // loader without ES module support (Jest's default) cannot run a dynamic import.
  supported: { 'dynamic-import': false },
  bundle: true,
  legalComments: 'inline',
  logLevel: 'warning',
  // A module that finds files beside itself reads `__dirname` when it is defined and only then
  // `import.meta.url`, so the empty `import.meta` of the CommonJS build is never read.
  logOverride: { 'empty-import-meta': 'silent' },
  plugins: [
    {
      name: 'one-file-per-module',
      setup(context) {
        context.onResolve({ filter: /.*/ }, (args) => {
          if (args.kind === 'entry-point') return undefined;
          if (args.path.startsWith('.')) return { path: args.path, external: true };
          if (args.path.startsWith('node:') || isRequirable(args.path, args.resolveDir))
            return { path: args.path, external: true };
          inlined.add(packageNameOf(args.path));
          return undefined;
        });
        // An inlined package keeps its name, version and licence next to its code.
        context.onLoad({ filter: /[\\/]node_modules[\\/]/ }, (args) => {
          const manifest = packageManifestOf(dirname(args.path));
          const notice = `/*! ${manifest.name}@${manifest.version} (${manifest.license}), inlined for CommonJS consumers */\n`;
          return { contents: notice + readFileSync(args.path, 'utf8'), loader: 'js', resolveDir: dirname(args.path) };
        });
      },
    },
  ],
});
// Files the modules read at run time beside themselves (the DynamoDB Local launcher of idemkit/testing).
for (const asset of filesUnder(join(root, 'src')).filter((file) => file.endsWith('.java'))) {
  for (const build of [esm, cjs]) copyFileSync(asset, join(build, relative(root, asset)));
}
writeFileSync(join(cjs, 'package.json'), `${JSON.stringify({ type: 'commonjs' }, null, 2)}\n`);
for (const declaration of filesUnder(esm).filter((file) => file.endsWith('.d.ts'))) {
  const target = join(cjs, relative(esm, declaration));
  mkdirSync(dirname(target), { recursive: true });
  writeFileSync(target, asCommonJsDeclaration(readFileSync(declaration, 'utf8'), dirname(declaration)));
}
console.log(
  `built dist/esm and dist/cjs from ${sources.length} modules${inlined.size ? `; inlined in CommonJS: ${[...inlined].join(', ')}` : ''}`,
);

/**
 * A declaration file as CommonJS code sees it: an import of an ES-module-only package (Middy)
 * needs `resolution-mode: import`, or TypeScript refuses it from a CommonJS file (TS1541).
 */
function asCommonJsDeclaration(text, fromDir) {
  const esmOnly = (specifier) =>
    !specifier.startsWith('.') &&
    !specifier.startsWith('node:') &&
    installedManifest(packageNameOf(specifier), fromDir) !== undefined &&
    !isRequirable(specifier, fromDir);
  return text
    .replace(/^(import|export)(?: type)? (.+?) from (['"])([^'"]+)\3;$/gm, (line, keyword, clause, quote, specifier) =>
      esmOnly(specifier)
        ? `${keyword} type ${clause.replace(/\btype /g, '')} from ${quote}${specifier}${quote} with { 'resolution-mode': 'import' };`
        : line,
    )
    .replace(/import\((['"])([^'"]+)\1\)/g, (call, quote, specifier) =>
      esmOnly(specifier) ? `import(${quote}${specifier}${quote}, { with: { 'resolution-mode': 'import' } })` : call,
    );
}

/** The TypeScript files tsconfig.build.json compiles (its `include` folders minus `exclude`). */
function sourceFilesOf(config) {
  const excluded = (config.exclude ?? []).map((path) => join(root, path));
  return config.include
    .flatMap((folder) => filesUnder(join(root, folder)))
    .filter((file) => file.endsWith('.ts') && !file.endsWith('.d.ts'))
    .filter((file) => !excluded.some((folder) => file === folder || file.startsWith(`${folder}/`)));
}

function filesUnder(folder) {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    return entry.isDirectory() ? filesUnder(path) : [path];
  });
}

/** True when `require(specifier)` from `fromDir` reaches a CommonJS file. */
function isRequirable(specifier, fromDir) {
  let file;
  try {
    file = createRequire(join(fromDir, 'noop.js')).resolve(specifier);
  } catch {
    return false;
  }
  if (extname(file) === '.cjs') return true;
  if (extname(file) === '.mjs') return false;
  return nearestPackageType(dirname(file)) !== 'module';
}

function nearestPackageType(folder) {
  return packageManifestOf(folder).type ?? 'commonjs';
}

/** The nearest package.json at or above `folder` (empty when there is none). */
function packageManifestOf(folder) {
  for (let current = folder; ; current = dirname(current)) {
    try {
      return JSON.parse(readFileSync(join(current, 'package.json'), 'utf8'));
    } catch {
      if (dirname(current) === current) return {};
    }
  }
}

/** The package.json of an installed package (not a types-only `@types/` stand-in), or undefined. */
function installedManifest(name, fromDir) {
  for (let current = fromDir; ; current = dirname(current)) {
    try {
      return JSON.parse(readFileSync(join(current, 'node_modules', name, 'package.json'), 'utf8'));
    } catch {
      if (dirname(current) === current) return undefined;
    }
  }
}

function packageNameOf(specifier) {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

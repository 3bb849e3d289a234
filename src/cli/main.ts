#!/usr/bin/env node
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runCli } from './run-cli.js';

// The SDK warns on every run under Node 20 about its future Node 22 requirement; an operator
// tool's output is no place for it. An explicit setting in the environment still wins.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

runCli(process.argv.slice(2), undefined, { version: installedVersion() }).then((code) => process.exit(code));

/**
 * The version of the installed package: the nearest `package.json` named `idemkit` above this file
 * (`src/cli/` in a clone, `dist/esm/src/cli/` once built, wherever npm put it).
 */
function installedVersion(): string {
  for (let folder = dirname(fileURLToPath(import.meta.url)); ; folder = dirname(folder)) {
    try {
      const manifest = JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8')) as Record<string, unknown>;
      if (manifest.name === 'idemkit' && typeof manifest.version === 'string') return manifest.version;
    } catch {
      // No readable package.json here: keep climbing.
    }
    if (dirname(folder) === folder) return 'unknown';
  }
}

/**
 * A TypeDoc plugin that names the site's pages the way a reader looks for them:
 * - each module of the API reference after the import path a consumer writes (`idemkit/sqs`),
 *   read from package.json's exports, instead of after its source file (`entries/sqs`), so the
 *   entry files need no `@module` tag of their own;
 * - each guide after its first heading instead of its file name (`docs/http`), so the guides
 *   need no front matter, which GitHub would show as a table above them.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { Converter, ReflectionKind } from 'typedoc';

const ROOT = resolve(import.meta.dirname, '..', '..');

/** Absolute source path → import path, for every entry of package.json. */
function entryNames() {
  const { name, exports: packageExports } = JSON.parse(readFileSync(resolve(ROOT, 'package.json'), 'utf8'));
  const names = new Map();
  for (const [subpath, target] of Object.entries(packageExports)) {
    if (typeof target !== 'object') continue;
    const source = target.import.types.replace(/^\.\/dist\/esm\//, '').replace(/\.d\.ts$/, '.ts');
    names.set(resolve(ROOT, source), subpath === '.' ? name : `${name}/${subpath.slice(2)}`);
  }
  return names;
}

/** @param {import('typedoc').Application} app */
export function load(app) {
  const names = entryNames();
  app.converter.on(Converter.EVENT_CREATE_DECLARATION, (context, reflection) => {
    if (!reflection.kindOf(ReflectionKind.Module)) return;
    const symbol = context.getSymbolFromReflection(reflection);
    const file = symbol?.declarations?.[0]?.getSourceFile().fileName;
    const name = file && names.get(resolve(file));
    if (name) reflection.name = name;
  });
  app.converter.on(Converter.EVENT_CREATE_DOCUMENT, (_context, document) => {
    if (document.frontmatter.title) return;
    const heading = /^#\s+(.+)$/m.exec(document.content.map((part) => part.text).join(''));
    if (heading) document.name = heading[1].replace(/`/g, '').trim();
  });
}

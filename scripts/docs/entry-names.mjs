/**
 * A TypeDoc plugin that names the site's pages the way a reader looks for them:
 * - each module of the API reference after the import path a consumer writes (`idemkit/sqs`),
 *   read from package.json's exports, instead of after its source file (`entries/sqs`), so the
 *   entry files need no `@module` tag of their own;
 * - each guide after its first heading instead of its file name (`docs/http`), so the guides
 *   need no front matter, which GitHub would show as a table above them.
 */
import { resolve } from 'node:path';
import { Converter, ReflectionKind } from 'typedoc';
import { packageEntries } from './package-entries.mjs';

const ROOT = resolve(import.meta.dirname, '..', '..');

/** @param {import('typedoc').Application} app */
export function load(app) {
  const names = new Map(packageEntries(ROOT).map(({ name, source }) => [resolve(ROOT, source), name]));
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

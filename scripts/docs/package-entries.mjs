/**
 * The package's public entries, read from package.json's exports: the import path a consumer
 * writes (`idemkit/sqs`) and the source file it is built from (`src/entries/sqs.ts`, mapped back
 * from `./dist/esm/src/entries/sqs.d.ts`). The API reference, its module names and the samples
 * test all read this one list, so a new entry in `exports` reaches each of them with no line of its own.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';

/**
 * Every entry of the package.json in `root` whose exports have a types condition, in the order it lists them.
 *
 * @param {string} root the repository's folder
 * @returns {{ name: string, source: string }[]}
 * @example
 * packageEntries(process.cwd()) // [{ name: 'idemkit', source: 'src/index.ts' }, { name: 'idemkit/client', source: 'src/client/index.ts' }, ...]
 */
export function packageEntries(root) {
  const { name, exports: packageExports } = JSON.parse(readFileSync(resolve(root, 'package.json'), 'utf8'));
  return Object.entries(packageExports)
    .filter(([, target]) => typeof target === 'object')
    .map(([subpath, target]) => ({
      name: subpath === '.' ? name : `${name}/${subpath.slice(2)}`,
      source: target.import.types.replace(/^\.\/dist\/esm\//, '').replace(/\.d\.ts$/, '.ts'),
    }));
}

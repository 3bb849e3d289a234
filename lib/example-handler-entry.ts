import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const HANDLERS_DIR = fileURLToPath(new URL('../src/handlers/', import.meta.url));

/**
 * Path of one of the example service's handler entry files: the TypeScript source in the
 * repository, the compiled JavaScript in the published package.
 *
 * @example exampleHandlerEntry('create-payment') // '<root>/src/handlers/create-payment.ts'
 */
export function exampleHandlerEntry(name: string): string {
  const source = join(HANDLERS_DIR, `${name}.ts`);
  return existsSync(source) ? source : join(HANDLERS_DIR, `${name}.js`);
}

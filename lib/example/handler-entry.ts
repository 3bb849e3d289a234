import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const HANDLERS_DIR = fileURLToPath(new URL('../../src/handlers/', import.meta.url));

/**
 * Path of one of the example service's handler entry files (TypeScript, bundled by
 * `NodejsFunction`'s esbuild).
 *
 * @example exampleHandlerEntry('create-payment') // '<root>/src/handlers/create-payment.ts'
 */
export function exampleHandlerEntry(name: string): string {
  return join(HANDLERS_DIR, `${name}.ts`);
}

/** `tsx scripts/docs/figures/main.ts`: writes the generated figures into docs/ (npm run docs runs it first). */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { renderFigures } from './figures.js';

const root = join(import.meta.dirname, '..', '..', '..');
for (const [name, svg] of Object.entries(renderFigures(root))) {
  writeFileSync(join(root, 'docs', name), svg);
  console.log(`docs/${name}: ${svg.length} bytes`);
}

/**
 * Every figure of the documentation that is drawn from data or source, by file name under docs/:
 * `npm run docs` writes them, and test/unit/docs/figures.test.ts fails when a committed one
 * differs from what its source gives today.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { renderBenchRatios, type BenchResults } from './bench-ratios.js';
import { PAYMENT_STEPS, PAYMENT_WINDOWS, renderFailureWindows } from './failure-windows.js';
import { parseStateDiagram, renderStateMachine, unknownGuards } from './state-machine.js';

/**
 * The figures, rendered from the repository at `root`. The state machine refuses to draw a guard
 * that model/guards.json does not define.
 *
 * @example
 * for (const [name, svg] of Object.entries(renderFigures(process.cwd()))) writeFileSync(`docs/${name}`, svg);
 */
export function renderFigures(root: string): Record<string, string> {
  const read = (path: string): string => readFileSync(join(root, path), 'utf8');
  const diagram = parseStateDiagram(read('docs/protocol.md'));
  const strangers = unknownGuards(diagram, Object.keys(JSON.parse(read('model/guards.json')) as object));
  if (strangers.length > 0) {
    throw new Error(`docs/protocol.md cites guards that model/guards.json does not define: ${strangers.join(', ')}`);
  }
  return {
    'state-machine.svg': renderStateMachine(diagram),
    'failure-windows.svg': renderFailureWindows(PAYMENT_STEPS, PAYMENT_WINDOWS),
    'bench-ratios.svg': renderBenchRatios(JSON.parse(read('bench/results.json')) as BenchResults),
  };
}

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { renderFigures } from '../../../scripts/docs/figures/figures.js';
import { parseStateDiagram, unknownGuards } from '../../../scripts/docs/figures/state-machine.js';
import { ratioBars, type BenchResults } from '../../../scripts/docs/figures/bench-ratios.js';

const ROOT = join(__dirname, '..', '..', '..');
const read = (path: string): string => readFileSync(join(ROOT, path), 'utf8');

describe('the documentation figures drawn from data and source', () => {
  const figures = renderFigures(ROOT);

  it.each(Object.keys(figures))('docs/%s is what its source draws today (npm run docs rewrites it)', (name) => {
    expect(read(join('docs', name))).toBe(figures[name]);
  });

  it('draws every transition of the protocol diagram, each with its number in the legend', () => {
    const diagram = parseStateDiagram(read('docs/protocol.md'));
    const svg = figures['state-machine.svg'];

    expect(diagram.transitions.length).toBeGreaterThanOrEqual(15);
    for (const [index, transition] of diagram.transitions.entries()) {
      expect(svg).toContain(`>${index + 1}</text>`);
      expect(svg).toContain(`${transition.from} → ${transition.to}`);
    }
  });

  it('finds a guard the model does not define', () => {
    const diagram = parseStateDiagram(
      '```mermaid\nstateDiagram-v2\n  state "free" as Free\n  state "held" as Leased\n  [*] --> Free\n  Free --> Leased: reserve [claimable], steal [noSuchGuard]\n```\n',
    );

    expect(unknownGuards(diagram, Object.keys(JSON.parse(read('model/guards.json')) as object))).toEqual([
      'noSuchGuard',
    ]);
  });

  it('refuses a diagram that uses a state it does not declare', () => {
    expect(() => parseStateDiagram('```mermaid\nstateDiagram-v2\n  [*] --> Nowhere\n```\n')).toThrow(
      'the state diagram uses Nowhere, which it does not declare',
    );
  });

  it('reads the benchmark ratios from bench/results.json as measured', () => {
    const results = JSON.parse(read('bench/results.json')) as BenchResults;
    const bars = ratioBars(results);

    expect(bars.find(({ label }) => label === 'throughput, 32 callers')?.ratio).toBe(
      results.throughput.idemkitVsPowertools,
    );
    expect(figures['bench-ratios.svg']).toContain(`${results.throughput.idemkitVsPowertools.toFixed(2)}×`);
  });
});

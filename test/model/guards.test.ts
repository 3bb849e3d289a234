import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { JournalCondition } from '../../src/journal/conditions.js';

interface GuardEntry {
  expression: string;
  usedBy: string[];
  promela: string | null;
  notModelled?: string;
}

const root = join(__dirname, '../..');
const guards = JSON.parse(readFileSync(join(root, 'model/guards.json'), 'utf8')) as Record<string, GuardEntry>;
const model = readFileSync(join(root, 'model/journal.pml'), 'utf8');
const modelLines = model.split('\n').map((line) => line.trim());
const journalDir = join(root, 'src/journal');
const journalSources = readdirSync(journalDir)
  .filter((file) => file.endsWith('.ts') && file !== 'conditions.ts')
  .map((file) => ({ file, text: readFileSync(join(journalDir, file), 'utf8') }));

describe('the model and the journal name the same guards', () => {
  it('has a table entry for every condition the journal uses, and none more', () => {
    expect(Object.keys(guards).sort()).toEqual(Object.keys(JournalCondition).sort());
  });

  it.each(Object.entries(JournalCondition))('table entry %s carries the journal’s expression', (name, expression) => {
    expect(guards[name]?.expression).toBe(expression);
  });

  it.each(Object.entries(guards).filter(([, entry]) => entry.promela !== null))(
    'model guard for %s is the one in the table, under the expression it stands for',
    (name, entry) => {
      expect(modelLines).toContain(entry.promela);
      expect(model).toContain(`/* guard ${name}: ${entry.expression} */`);
      const macro = /^#define (\w+)/.exec(entry.promela!)![1]!;
      const uses = model
        .split('\n')
        .filter((line) => new RegExp(`\\b${macro}\\b`).test(line) && !line.trim().startsWith(`#define ${macro}`));
      expect(uses.length).toBeGreaterThan(0);
    },
  );

  it.each(Object.entries(guards).filter(([, entry]) => entry.promela === null))(
    'says why %s is not modelled',
    (_name, entry) => {
      expect(entry.notModelled?.length).toBeGreaterThan(20);
    },
  );

  it('writes every condition of the journal through the named conditions, not inline', () => {
    const inline = journalSources
      .filter(({ text }) => /ConditionExpression:\s*['"`]/.test(text))
      .map(({ file }) => file);
    const copies = journalSources
      .filter(({ text }) => Object.values(JournalCondition).some((expression) => text.includes(expression)))
      .map(({ file }) => file);
    expect(inline).toEqual([]);
    expect(copies).toEqual([]);
  });
});

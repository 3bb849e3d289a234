import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { packageEntries } from '../../scripts/docs/package-entries.mjs';

const ROOT = join(__dirname, '..', '..');

/** Every ```ts block of a markdown file, with the line its code starts on. */
function typescriptSamples(markdown: string): Array<{ line: number; code: string }> {
  const samples: Array<{ line: number; code: string }> = [];
  const lines = markdown.split('\n');
  for (let index = 0; index < lines.length; index++) {
    if (!/^```(ts|typescript)\s*$/.test(lines[index])) continue;
    const end = lines.findIndex((line, at) => at > index && line.startsWith('```'));
    samples.push({ line: index + 2, code: lines.slice(index + 1, end).join('\n') });
    index = end;
  }
  return samples;
}

/** The package's entries, resolved to their sources, as a consumer's `idemkit/...` imports reach them. */
const ENTRY_SOURCES: Record<string, string> = Object.fromEntries(
  packageEntries(ROOT).map(({ name, source }) => [name, source]),
);

/** The README and every guide of the documentation site. */
const DOCUMENTS = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'), { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.md'))
    .sort()
    .map((file) => join('docs', file)),
];

describe('TypeScript samples of the README and the guides', () => {
  const samples = DOCUMENTS.flatMap((document) =>
    typescriptSamples(readFileSync(join(ROOT, document), 'utf8')).map((sample) => ({ document, ...sample })),
  );
  const folder = join(ROOT, 'node_modules', '.cache', `readme-samples-${process.pid}`);
  afterAll(() => rmSync(folder, { recursive: true, force: true }));

  it('has samples to check in the README and in the guides', () => {
    expect(samples.filter(({ document }) => document === 'README.md').length).toBeGreaterThanOrEqual(1);
    expect(samples.filter(({ document }) => document !== 'README.md').length).toBeGreaterThanOrEqual(8);
  });

  it('knows every public entry', () => {
    expect(Object.keys(ENTRY_SOURCES)).toEqual(
      expect.arrayContaining(['idemkit', 'idemkit/client', 'idemkit/sqs', 'idemkit/outbox', 'idemkit/cdk']),
    );
  });

  it('compile, each as its own module, against the package entries', () => {
    mkdirSync(folder, { recursive: true });
    const files = samples.map(({ document, line, code }) => {
      const file = join(folder, `${document.replace(/[/.]/g, '-')}-line-${line}.ts`);
      writeFileSync(file, code);
      return file;
    });
    const program = ts.createProgram(files, {
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.Preserve,
      moduleResolution: ts.ModuleResolutionKind.Bundler,
      moduleDetection: ts.ModuleDetectionKind.Force,
      lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'],
      types: ['node'],
      typeRoots: [join(ROOT, 'node_modules', '@types')],
      strict: true,
      noEmit: true,
      skipLibCheck: true,
      esModuleInterop: true,
      paths: Object.fromEntries(Object.entries(ENTRY_SOURCES).map(([name, source]) => [name, [join(ROOT, source)]])),
    });
    const problems = files.flatMap((file) => {
      const source = program.getSourceFile(file)!;
      return [...program.getSyntacticDiagnostics(source), ...program.getSemanticDiagnostics(source)].map(
        (diagnostic) => {
          const { line } = source.getLineAndCharacterOfPosition(diagnostic.start ?? 0);
          const { document, line: start } = samples[files.indexOf(file)];
          return `${document}:${start + line}: ${ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')}`;
        },
      );
    });

    expect(problems).toEqual([]);
  });
});

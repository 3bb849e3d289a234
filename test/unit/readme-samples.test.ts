import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';

const ROOT = join(__dirname, '..', '..');

/** Every ```ts block of the README, with the line its code starts on. */
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
const ENTRY_SOURCES: Record<string, string> = {
  idemkit: 'src/index.ts',
  'idemkit/client': 'src/client/index.ts',
  'idemkit/sqs': 'src/entries/sqs.ts',
  'idemkit/outbox': 'src/outbox/index.ts',
  'idemkit/cdk': 'lib/index.ts',
  'idemkit/testing': 'src/testing/index.ts',
};

describe('README TypeScript samples', () => {
  // The testing guide's samples are what a user's suite copies: they compile like the README's.
  const samples = ['README.md', 'docs/testing-your-handlers.md'].flatMap((document) =>
    typescriptSamples(readFileSync(join(ROOT, document), 'utf8')).map((sample) => ({ ...sample, document })),
  );
  const folder = join(ROOT, 'node_modules', '.cache', `readme-samples-${process.pid}`);
  afterAll(() => rmSync(folder, { recursive: true, force: true }));

  it('has samples to check', () => {
    expect(samples.length).toBeGreaterThanOrEqual(4);
  });

  it('compile, each as its own module, against the package entries', () => {
    mkdirSync(folder, { recursive: true });
    const files = samples.map(({ line, code }, index) => {
      const file = join(folder, `sample-${index}-line-${line}.ts`);
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
          const sample = samples[files.indexOf(file)];
          return `${sample.document}:${sample.line + line}: ${ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')}`;
        },
      );
    });

    expect(problems).toEqual([]);
  });
});

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  blocksOf,
  documentsOf,
  expectedStatusesOf,
  missingFromCi,
  observedStatusesOf,
  withPlaceholders,
  type ShellBlock,
} from '../../../scripts/readme-check/shell-blocks.mjs';

const ROOT = join(__dirname, '..', '..', '..');
const CI_SCRIPT = readFileSync(join(ROOT, '.ci/run'), 'utf8');

/** Every shell block of the README and the guides, with the document it is in. */
const BLOCKS: Array<ShellBlock & { document: string }> = documentsOf(ROOT).flatMap((document) =>
  blocksOf(readFileSync(join(ROOT, document), 'utf8')).shell.map((block) => ({ document, ...block })),
);

describe('shell blocks of the README and the guides (what npm run check:readme runs)', () => {
  it('finds blocks to run in the clone and in a project, and marked ones it leaves', () => {
    const kinds = new Set(BLOCKS.map((block) => block.kind));

    expect([...kinds].sort()).toEqual(['aws-account', 'ci', 'clone', 'docker', 'project']);
  });

  it('leaves a block to .ci/run only when .ci/run runs its npm scripts', () => {
    const missing = BLOCKS.filter((block) => block.kind === 'ci').flatMap((block) =>
      missingFromCi(block.code, CI_SCRIPT).map((command) => `${block.document}:${block.line}: ${command}`),
    );

    expect(missing).toEqual([]);
  });

  it('marks every block that reaches AWS as needing an AWS account', () => {
    const reachesAws = BLOCKS.filter(
      (block) =>
        /\b(cdk (deploy|bootstrap|destroy)|aws cloudformation|execute-api\.[\w-]+\.amazonaws\.com)\b/.test(
          block.code,
        ) || /\baws dynamodb (?!.*--endpoint-url)/.test(block.code),
    );

    expect(reachesAws.filter((block) => block.kind !== 'aws-account').map((b) => `${b.document}:${b.line}`)).toEqual(
      [],
    );
  });

  it('marks every block that calls Docker or SAM as needing Docker', () => {
    const docker = BLOCKS.filter((block) => /^\s*(docker|sam) /m.test(block.code));

    expect(docker.length).toBeGreaterThan(0);
    expect(docker.filter((block) => block.kind !== 'docker').map((b) => `${b.document}:${b.line}`)).toEqual([]);
  });

  it("names the README's Quick start file, which the project blocks compile", () => {
    const { files, shell } = blocksOf(readFileSync(join(ROOT, 'README.md'), 'utf8'));

    expect(files.map((file) => file.name)).toEqual(['handler.ts']);
    expect(
      shell.filter((block) => block.kind === 'project').some((block) => /npx tsc\b(?! --init)/.test(block.code)),
    ).toBe(true);
  });

  it('saves the blocks that name a file under their path in the project, never above it; other TypeScript is a sample', () => {
    const markdown = [
      '```ts',
      '// test/payments.test.ts',
      'test();',
      '```',
      '```js',
      '// jest.config.js',
      'export default {};',
      '```',
      '```ts',
      '// ../outside.ts',
      'const escaped = 1;',
      '```',
      '```ts',
      'const sample = 1;',
      '```',
      '```js',
      'const unnamed = 1;',
      '```',
    ].join('\n');

    const { files, samples } = blocksOf(markdown);

    expect(files.map((file) => file.name)).toEqual(['test/payments.test.ts', 'jest.config.js']);
    expect(samples.map((sample) => sample.code.split('\n').at(-1))).toEqual([
      'const escaped = 1;',
      'const sample = 1;',
    ]);
  });

  it("names the testing guide's Jest set-up files, which its project blocks run", () => {
    const { files, shell } = blocksOf(readFileSync(join(ROOT, 'docs/testing-your-handlers.md'), 'utf8'));

    expect(files.map((file) => file.name)).toEqual([
      'jest.config.js',
      'jest.global-setup.js',
      'jest.global-teardown.js',
      'test/payments.test.ts',
    ]);
    expect(shell.filter((block) => block.kind === 'project').some((block) => /^npm test$/m.test(block.code))).toBe(
      true,
    );
  });

  it('puts the check’s values into placeholder assignments and leaves every other line as written', () => {
    const code = 'IDEMKIT_CLONE=/path/to/idemkit   # your clone\nnpm install "$IDEMKIT_CLONE"\nOTHER=1';

    expect(withPlaceholders(code, { IDEMKIT_CLONE: "/tmp/it's" })).toBe(
      "IDEMKIT_CLONE='/tmp/it'\\''s'   # set by the README check\nnpm install \"$IDEMKIT_CLONE\"\nOTHER=1",
    );
  });

  it('reads a marker only on the first line of a block or, for .ci/run, the line before its fence', () => {
    const markdown = [
      '```sh',
      'echo first',
      '# needs Docker',
      '```',
      '<!-- readme-check: .ci/run runs these -->',
      '```sh',
      'npm test',
      '```',
      '```sh',
      '# in your project',
      'npm install x',
      '```',
    ].join('\n');

    expect(blocksOf(markdown).shell.map((block) => block.kind)).toEqual(['clone', 'ci', 'project']);
  });

  it("reads the statuses the local API guide's comments promise, a continued command included", () => {
    const guide = readFileSync(join(ROOT, 'docs/example-service.md'), 'utf8');
    const local = blocksOf(guide).shell.filter((block) => block.kind === 'clone');

    expect(local.map((block) => expectedStatusesOf(block.code))).toEqual([
      [201, 201, 422, 400],
      [],
      [201, 201, 422, 201],
    ]);
  });

  it("compares them with curl's status lines and the local invoke's statusCode, not with log lines", () => {
    const output = [
      '03:17:18.610  201 POST /payments',
      'HTTP/1.1 201 Created',
      '{"paymentId":"p"}',
      '{',
      '  "statusCode": 422,',
      '  "body": "{\\"statusCode\\": 500}"',
      '}',
    ].join('\n');

    expect(observedStatusesOf(output)).toEqual([201, 422]);
  });
});

import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

const ROOT = join(__dirname, '../..');

describe('testApp', () => {
  it("synthesizes without aws-cdk-lib's WebAssembly template validator, which kept Jest workers from exiting", () => {
    // In a process of its own: Jest's module registry does not show what aws-cdk-lib loads lazily.
    const script = `
      import { createRequire } from 'node:module';
      import { pathToFileURL } from 'node:url';
      import { tsImport } from 'tsx/esm/api';
      const here = pathToFileURL(process.cwd() + '/').href;
      const { testStack } = await tsImport('./test/cdk/test-app.ts', here);
      const { Template } = await import('aws-cdk-lib/assertions');
      Template.fromStack(testStack());
      const loaded = Object.keys(createRequire(here).cache).filter((path) => path.includes('@aws/cloudformation-validate'));
      process.stdout.write(JSON.stringify(loaded));`;
    const loaded = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
      cwd: ROOT,
      encoding: 'utf8',
    });
    expect(JSON.parse(loaded)).toEqual([]);
  }, 60_000);
});

import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';

const ROOT = join(__dirname, '..', '..', '..');

/** The suites each project of jest.config.mjs matches, as paths under the repository, read by a plain Node. */
function projectSuites(): Record<string, string[]> {
  const script = `
    import { pathToFileURL } from 'node:url';
    const { default: config } = await import(pathToFileURL(process.argv[1]).href);
    console.log(JSON.stringify(config.projects.map((project) => [project.displayName, project.testMatch])));`;
  const projects = JSON.parse(
    execFileSync(process.execPath, ['--input-type=module', '-e', script, join(ROOT, 'jest.config.mjs')], {
      encoding: 'utf8',
    }),
  ) as Array<[string, string[]]>;
  return Object.fromEntries(
    projects.map(([name, patterns]) => [
      name,
      allSuites().filter((suite) =>
        patterns.some((pattern) => {
          const path = pattern.replace('<rootDir>/', '');
          return path.endsWith('**/*.test.ts') ? suite.startsWith(path.replace('**/*.test.ts', '')) : suite === path;
        }),
      ),
    ]),
  );
}

function allSuites(folder = join(ROOT, 'test')): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return allSuites(path);
    return entry.name.endsWith('.test.ts') ? [relative(ROOT, path)] : [];
  });
}

describe('the Jest projects of npm test', () => {
  const projects = projectSuites();

  it('run every suite outside test/durable exactly once', () => {
    const runs = Object.values(projects).flat();
    const mainSuites = allSuites().filter((suite) => !suite.startsWith('test/durable/'));

    expect(mainSuites.filter((suite) => runs.filter((run) => run === suite).length !== 1)).toEqual([]);
    expect(runs.filter((run) => run.startsWith('test/durable/'))).toEqual([]);
  });

  it('keep the CDK suites out of the unit loop, in the cdk project', () => {
    const cdkFolder = allSuites().filter((suite) => suite.startsWith('test/cdk/'));

    expect(cdkFolder.length).toBeGreaterThan(0);
    expect(projects.cdk).toEqual(expect.arrayContaining(cdkFolder));
    expect(projects.unit.filter((suite) => suite.startsWith('test/cdk/'))).toEqual([]);
  });

  it('leave a suite that builds a CDK app against DynamoDB Local in integration', () => {
    expect(projects.integration).toContain('test/environment/construct-environment.test.ts');
    expect(projects.cdk).not.toContain('test/environment/construct-environment.test.ts');
  });
});

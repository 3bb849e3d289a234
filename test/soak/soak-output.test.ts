import { execFileSync, spawn } from 'node:child_process';
import { statSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(__dirname, '../..');

/** Tracked files that differ from the index, and untracked files git does not ignore. */
function workingTreeChanges(): string {
  return execFileSync('git', ['status', '--porcelain', '--untracked-files=all'], { cwd: ROOT, encoding: 'utf8' });
}

/** `npm run soak -- <args>` as a user runs it: its output and exit code. */
async function soak(args: readonly string[]): Promise<{ readonly code: number | null; readonly output: string }> {
  const child = spawn('npm', ['run', 'soak', '--', ...args], {
    cwd: ROOT,
    env: { ...process.env, SOAK_NO_FAULTS: '1', POWERTOOLS_LOG_LEVEL: 'SILENT' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  return { code, output };
}

describe('npm run soak', () => {
  it('writes its report to the git-ignored .local/soak/ and leaves the tracked docs/soak.md alone', async () => {
    const changesBefore = workingTreeChanges();
    const startedAtMs = Date.now();
    const { code, output } = await soak(['--duration', '1', '--rate', '1', '--workers', '1']);
    // A 1-second run injects no fault: it exits 1 for the fault kinds never injected, 2 if it could not run.
    expect(code).not.toBe(2);
    expect(output).toContain('report: .local/soak/soak.md, chart: .local/soak/soak.svg');
    for (const file of ['soak.md', 'soak.svg'])
      expect(statSync(join(ROOT, '.local/soak', file)).mtimeMs).toBeGreaterThanOrEqual(startedAtMs - 1000);
    expect(workingTreeChanges()).toBe(changesBefore);
  }, 180_000);

  it('refuses --update-docs with --out, before starting anything', async () => {
    const { code, output } = await soak(['--update-docs', '--out', 'elsewhere']);
    expect(code).toBe(1);
    expect(output).toContain('--update-docs writes to docs/');
    expect(output).not.toContain('starting DynamoDB Local');
  }, 60_000);
});

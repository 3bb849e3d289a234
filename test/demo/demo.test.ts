import { execFileSync, spawn } from 'node:child_process';
import { join } from 'node:path';

const ROOT = join(__dirname, '../..');

/** Tracked files that differ from the index, and untracked files git does not ignore. */
function workingTreeChanges(): string {
  return execFileSync('git', ['status', '--porcelain', '--untracked-files=all'], { cwd: ROOT, encoding: 'utf8' });
}

describe('npm run demo', () => {
  it('plays every scenario, each holding, and exits 0 without leaving DynamoDB Local behind', async () => {
    const changesBefore = workingTreeChanges();
    const child = spawn(join(ROOT, 'node_modules/.bin/tsx'), [join(ROOT, 'scripts/demo/main.ts')], {
      cwd: ROOT,
      env: { ...process.env, NODE_NO_WARNINGS: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(out).toContain('ready (DynamoDB Local pid');
    for (const scenario of [
      'lost response',
      'double tap',
      'changed amount',
      'crash after rail',
      'queue redelivery',
      'outbox twice',
      'staged-only double tap',
      'retry storm',
      'migrated replay',
      'stream batch retried',
      'retry across Regions',
    ]) {
      expect(out).toMatch(new RegExp(`${scenario}\\s+yes`));
    }
    expect(out).toMatch(/two identical 201 answers \(same body\), no 409, 1 committed write/);
    expect(out).toMatch(/idempotency_status=recovered, attempt 2/);
    // The staged-only scenario records a bank transfer: its answers name a transfer, never a payment.
    expect(out).toMatch(/← 201 {2}transfer tr_/);
    expect(out).not.toMatch(/payment tr_/);
    // What it writes (the retry-storm chart) goes to git-ignored .local/: no tracked file changes.
    expect(workingTreeChanges()).toBe(changesBefore);
    expect(out).toMatch(/us-west-2 +← 201, Idempotent-Replayed .*idempotency_status=replay/);
    // A check mark states what held, never a cost: the retry budget's failed calls get a line of their own.
    const checkMarked = out.split('\n').filter((line) => line.trimStart().startsWith('✔'));
    expect(checkMarked).toHaveLength(11);
    for (const line of checkMarked) expect(line).not.toMatch(/fail|\b0 of \d+/i);
    expect(out).toMatch(/✔ full jitter cut the peak [\d.]+× and all 1000 calls succeeded/);
    expect(out).toMatch(/⚠ the budget's price: 0 of 1000 calls succeeded/);
    // Scenarios 5 and 11 in a newcomer's words: no internal names or terms of art.
    for (const scenario of [between(out, '━━ 5.', '━━ 6.'), between(out, '━━ 11.', 'Metrics the runtime emitted')])
      expect(scenario).not.toMatch(
        /dispatcher|reservation|stream records|MRSC|cross-Region write conflict|fenc|settle/i,
      );
    expect(code).toBe(0);
    const pid = Number(/DynamoDB Local pid (\d+)/.exec(out)?.[1]);
    expect(() => process.kill(pid, 0)).toThrow();
  }, 120_000);
});

/** The text of `out` from `start` up to `end`. */
function between(out: string, start: string, end: string): string {
  const from = out.indexOf(start);
  expect(from).toBeGreaterThanOrEqual(0);
  return out.slice(from, out.indexOf(end, from));
}

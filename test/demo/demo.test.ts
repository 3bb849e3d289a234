import { spawn } from 'node:child_process';
import { join } from 'node:path';

const ROOT = join(__dirname, '../..');

describe('npm run demo', () => {
  it('plays every scenario, each holding, and exits 0 without leaving DynamoDB Local behind', async () => {
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
    expect(out).toMatch(/us-west-2 +← 201, Idempotent-Replayed .*idempotency_status=replay/);
    expect(code).toBe(0);
    const pid = Number(/DynamoDB Local pid (\d+)/.exec(out)?.[1]);
    expect(() => process.kill(pid, 0)).toThrow();
  }, 120_000);
});

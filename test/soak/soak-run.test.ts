import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FAULT_KINDS } from '../../scripts/soak/fault-schedule.js';
import type { SoakSummary } from '../../scripts/soak/report.js';
import { descendantsOf, killAll, survivorsAfter } from '../local-api/npm-start.js';

const ROOT = join(__dirname, '../..');

describe('npm run soak (20 seconds)', () => {
  it('holds every invariant with every fault kind injected, writes its report and leaves no process behind', async () => {
    const out = mkdtempSync(join(tmpdir(), 'idemkit-soak-'));
    const child = spawn(
      'npm',
      ['run', 'soak', '--', '--duration', '20', '--rate', '4', '--out', out, '--json', join(out, 'summary.json')],
      {
        cwd: ROOT,
        env: { ...process.env, AWS_ENDPOINT_URL_DYNAMODB: undefined, AWS_ENDPOINT_URL_SQS: undefined },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let output = '';
    const started = new Set<number>();
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    // Every process the run started, sampled as it goes (workers come and go as they are killed).
    const sampler = setInterval(() => descendantsOf(child.pid!).forEach((pid) => started.add(pid)), 1_000);
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve)).finally(() =>
      clearInterval(sampler),
    );
    try {
      const summary = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8')) as SoakSummary;
      expect({ code, violations: summary.violations, missing: summary.faultKindsMissing }).toEqual({
        code: 0,
        violations: [],
        missing: [],
      });
      for (const kind of FAULT_KINDS) expect(summary.faults[kind]).toBeGreaterThan(0);
      expect(summary.rate.achieved).toBeGreaterThanOrEqual(3.9);
      expect(summary.answers['2xx']).toBeGreaterThan(0);
      expect(readFileSync(join(out, 'soak.md'), 'utf8')).toContain('**PASSED**');
      expect(readFileSync(join(out, 'soak.svg'), 'utf8')).toMatch(/^<svg /);
      expect(await survivorsAfter([...started], 10_000)).toEqual([]);
    } catch (error) {
      killAll([...started]);
      throw Object.assign(error as Error, {
        message: `${(error as Error).message}\n--- soak output ---\n${output.slice(-4000)}`,
      });
    }
  }, 300_000);
});

import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli } from '../../../src/cli/index.js';

const root = join(__dirname, '../../..');

async function run(args: string[], version?: string): Promise<{ code: number; lines: string[] }> {
  const lines: string[] = [];
  const code = await runCli(args, { out: (t) => lines.push(t), err: (t) => lines.push(t) }, { version });
  return { code, lines };
}

describe('idemkit --version', () => {
  it('prints the version it is given and exits 0', async () => {
    expect(await run(['--version'], '1.2.3')).toEqual({ code: 0, lines: ['1.2.3'] });
  });

  it('is listed in the help', async () => {
    const { lines } = await run(['--help'], '1.2.3');
    expect(lines.join('\n')).toMatch(/-V, --version\s+print the installed version/);
  });

  it('prints the version of the package the executable belongs to', () => {
    const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string };
    const out = execFileSync(process.execPath, ['--import', 'tsx', join(root, 'src/cli/main.ts'), '--version'], {
      cwd: root,
      encoding: 'utf8',
    });
    expect(out.trim()).toBe(manifest.version);
  });
});

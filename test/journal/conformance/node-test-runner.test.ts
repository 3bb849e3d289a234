import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

/*
 * The conformance suite registers through the functions it is given and needs no Jest global: run
 * under node:test (its TSDoc's second example), it passes MemoryJournal, fails a broken journal on
 * the one case it breaks, and disposes every journal through node:test's afterEach.
 */
const root = join(__dirname, '../../..');
const fixture = join(__dirname, 'fixtures/node-test-run.ts');

function runUnderNodeTest(journal: 'memory' | 'broken') {
  const run = spawnSync(process.execPath, ['--import', 'tsx', '--test', '--test-reporter=tap', fixture], {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, CONFORMANCE_JOURNAL: journal },
    timeout: 60_000,
  });
  const count = (label: string) => Number(new RegExp(`^# ${label} (\\d+)$`, 'm').exec(run.stdout)?.[1]);
  return {
    status: run.status,
    tests: count('tests'),
    failed: count('fail'),
    disposed: Number(/journals disposed (\d+)/.exec(run.stdout)?.[1]),
    notOk: run.stdout.match(/^\s*not ok \d+ - .*$/gm)?.map((line) => line.trim().replace(/^not ok \d+ - /, '')),
  };
}

describe('the conformance suite under node:test', () => {
  it('passes MemoryJournal and disposes one journal per case through afterEach', () => {
    const run = runUnderNodeTest('memory');

    expect(run).toMatchObject({ status: 0, failed: 0 });
    expect(run.tests).toBeGreaterThan(50);
    expect(run.disposed).toBe(run.tests);
  });

  it('fails a journal whose complete ignores the lease token on that case alone', () => {
    const run = runUnderNodeTest('broken');

    expect(run).toMatchObject({ status: 1, failed: 1 });
    expect(run.notOk).toEqual([
      'complete with a stale token gets LeaseLostError carrying the record, and changes nothing',
      'fenced writes',
      'Journal conformance',
    ]);
  });
});

import { spawnSync } from 'node:child_process';

/**
 * Instructions of a whole `node` process run with `nodeArguments`, counted by valgrind's callgrind:
 * deterministic to a few percent under any load. The process runs `--jitless` and
 * `--single-threaded`, so the count is one interpreter thread's, and its output is discarded.
 *
 * @throws Error with the end of valgrind's output when it reports no count
 * @example callgrindInstructions(['--input-type=module', '-e', 'await import("./bundle.mjs")'], { env })
 */
export function callgrindInstructions(
  nodeArguments: readonly string[],
  options: { readonly env: NodeJS.ProcessEnv; readonly cwd?: string },
): number {
  const run = spawnSync(
    'valgrind',
    [
      '--tool=callgrind',
      '--callgrind-out-file=/dev/null',
      process.execPath,
      '--no-warnings',
      '--jitless',
      '--single-threaded',
      ...nodeArguments,
    ],
    { ...options, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 },
  );
  const match = /Collected\s*:\s*(\d+)/.exec(run.stderr);
  if (!match) throw new Error(`callgrind gave no count: ${run.stderr.slice(-2000)}`);
  return Number(match[1]);
}

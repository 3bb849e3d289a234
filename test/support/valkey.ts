import { spawn, type ChildProcess } from 'node:child_process';
import { Valkey } from 'iovalkey';
import { freePort, stopProcess } from '../../src/testing/local-process.js';

/**
 * A throwaway `redis-server` for a suite: bound to 127.0.0.1 on a free port, nothing on disk
 * (`--save '' --appendonly no`), started in `beforeAll` and stopped by its PID in `afterAll`.
 * Naming `startValkeyServer` makes a suite an integration suite (jest.config.mjs).
 */
export interface ValkeyServer {
  readonly port: number;
  readonly pid: number;
  /** A new iovalkey client on the server (closed by `stop()`). */
  client(): Valkey;
  stop(): Promise<void>;
}

/** Starts the server (again on another port if its port was taken meanwhile). */
export async function startValkeyServer(extraArgs: readonly string[] = []): Promise<ValkeyServer> {
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    const child = spawn(
      'redis-server',
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', ...extraArgs],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const ready = await readyOrExit(child);
    if (ready) return serverOn(port, child);
    if (attempt >= 3) throw new Error(`redis-server did not start on 127.0.0.1:${port}`);
  }
}

function readyOrExit(child: ChildProcess): Promise<boolean> {
  return new Promise((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`redis-server did not become ready:\n${output}`));
    }, 10_000);
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('Ready to accept connections')) {
        clearTimeout(timer);
        resolve(true);
      }
    });
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once('exit', () => {
      clearTimeout(timer);
      resolve(false);
    });
  });
}

function serverOn(port: number, child: ChildProcess): ValkeyServer {
  const clients: Valkey[] = [];
  return {
    port,
    pid: child.pid!,
    client() {
      const client = new Valkey({ host: '127.0.0.1', port, lazyConnect: false, maxRetriesPerRequest: 1 });
      clients.push(client);
      return client;
    },
    async stop() {
      await Promise.all(clients.splice(0).map((client) => client.quit().catch(() => client.disconnect())));
      await stopProcess(child.pid!, child);
    },
  };
}

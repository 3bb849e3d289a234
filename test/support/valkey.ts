import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Cluster, Valkey } from 'iovalkey';
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
  return startOn(await freePort(), extraArgs);
}

async function startOn(firstPort: number, extraArgs: readonly string[]): Promise<ValkeyServer> {
  for (let attempt = 1; ; attempt++) {
    const port = attempt === 1 ? firstPort : await freePort();
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

/** A three-node cluster (no replicas) on 127.0.0.1: every slot's keys live on one of three processes. */
export interface ValkeyCluster {
  readonly nodes: readonly ValkeyServer[];
  /** A new iovalkey cluster client (closed by `stop()`). */
  client(): Cluster;
  stop(): Promise<void>;
}

/**
 * Starts three `redis-server --cluster-enabled yes` nodes, joins them with `redis-cli --cluster
 * create`, and waits until each reports `cluster_state:ok`. A script touching a key its node does
 * not own then fails ("non local key"), so a journal run on it proves its scripts keep to one slot.
 */
export async function startValkeyCluster(): Promise<ValkeyCluster> {
  const directory = await mkdtemp(join(tmpdir(), 'idemkit-valkey-cluster-'));
  const nodes: ValkeyServer[] = [];
  const clients: Cluster[] = [];
  const stop = async () => {
    await Promise.all(clients.splice(0).map((client) => client.quit().catch(() => client.disconnect())));
    await Promise.all(nodes.map((node) => node.stop()));
    await rm(directory, { recursive: true, force: true });
  };
  try {
    for (let i = 0; i < 3; i++) {
      const port = await freePort();
      nodes.push(
        await startOn(port, [
          '--cluster-enabled',
          'yes',
          '--cluster-config-file',
          join(directory, `nodes-${port}.conf`),
        ]),
      );
    }
    const run = promisify(execFile);
    const addresses = nodes.map((node) => `127.0.0.1:${node.port}`);
    await run('redis-cli', ['--cluster', 'create', ...addresses, '--cluster-replicas', '0', '--cluster-yes']);
    for (const node of nodes) {
      for (let waited = 0; ; waited += 100) {
        const { stdout } = await run('redis-cli', ['-p', String(node.port), 'cluster', 'info']);
        if (stdout.includes('cluster_state:ok')) break;
        if (waited > 10_000) throw new Error(`cluster node ${node.port} did not reach cluster_state:ok`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    nodes,
    client() {
      const client = new Cluster(nodes.map((node) => ({ host: '127.0.0.1', port: node.port })));
      clients.push(client);
      return client;
    },
    stop,
  };
}

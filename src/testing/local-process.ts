import type { ChildProcess } from 'node:child_process';
import { createServer, type AddressInfo } from 'node:net';

/**
 * Asks the kernel for a free TCP port on 127.0.0.1, for a local server a test starts that cannot
 * bind port 0 itself. The port is released before it is returned, so another process can take it
 * before that server binds it: prefer a server that binds port 0 and reports the port it got, and
 * otherwise start it again on another port when it fails with "address in use".
 *
 * @example const port = await freePort(); // e.g. 41873
 */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** How long a process may take to end after SIGTERM before it gets SIGKILL. */
export const STOP_GRACE_MS = 5000;

/**
 * Ends one process by its PID: SIGTERM, then SIGKILL once {@link STOP_GRACE_MS} have passed.
 * Resolves when it is gone (at once when it already was).
 *
 * @example await stopProcess(server.pid);
 */
export async function stopProcess(pid: number, child?: ChildProcess): Promise<void> {
  const exited =
    child && child.exitCode === null && child.signalCode === null
      ? new Promise((resolve) => child.once('exit', resolve))
      : Promise.resolve();
  try {
    process.kill(pid, 'SIGTERM');
  } catch {
    return;
  }
  const grace = new Promise((resolve) => setTimeout(resolve, STOP_GRACE_MS).unref());
  await Promise.race([exited, grace]);
  try {
    process.kill(pid, 0);
    process.kill(pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
}

import { createHook } from 'node:async_hooks';
import { TestEnvironment } from 'jest-environment-node';

/** How long a suite's last handles get to close on their own (a socket's close, a child's exit). */
const DRAIN_MS = 2000;

/**
 * The unit project's environment: Node's, failing a suite that leaves something behind that
 * keeps the process alive (a ref'd timer, a server, a socket, a child process). A Jest worker
 * runs suites one after another, so a leftover only delays its exit, and Jest then force-exits
 * it with a warning that names no suite ("A worker process has failed to exit gracefully").
 * Jest's own `--detectOpenHandles` misses a timer a dependency arms after an `await` (Middy's
 * early timeout); this watches every resource created while the suite runs, wherever from.
 */
export default class UnitEnvironment extends TestEnvironment {
  /** Resources that can keep the process alive, by async id: their kind, where made, a weak ref. */
  #created = new Map();
  #hook = createHook({
    init: (asyncId, kind, _trigger, resource) => {
      if (typeof resource.hasRef !== 'function') return;
      this.#created.set(asyncId, { kind, where: callerOutsideNode(), resource: new WeakRef(resource) });
    },
    destroy: (asyncId) => this.#created.delete(asyncId),
  });

  async setup() {
    await super.setup();
    this.#hook.enable();
  }

  async teardown() {
    await super.teardown();
    const deadline = Date.now() + DRAIN_MS;
    let left = this.#keepingAlive();
    while (left.length > 0 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50).unref());
      left = this.#keepingAlive();
    }
    this.#hook.disable();
    this.#created.clear();
    if (left.length > 0)
      throw new Error(
        `the suite left ${left.map(({ kind, where }) => `a ${kind} (made ${where})`).join(', ')} ` +
          `keeping the process alive ${DRAIN_MS} ms after it ended: ` +
          'clear or unref timers, close servers, destroy clients, end child processes',
      );
  }

  #keepingAlive() {
    return [...this.#created.values()].filter(({ resource }) => resource.deref()?.hasRef() === true);
  }
}

/** The first stack frame outside Node's own modules and this file: who made the resource. */
function callerOutsideNode() {
  const frames = (new Error().stack ?? '').split('\n').slice(1);
  const frame = frames.find((line) => !line.includes('node:') && !line.includes('unit-environment.mjs'));
  return frame?.trim().replace(/^at /, '') ?? 'somewhere in Node';
}

/** Something a local run started and must stop: a server, an emulator, a child process. */
export interface Stoppable {
  stop(): Promise<void>;
}

/** Options of {@link Shutdown}. */
export interface ShutdownOptions {
  /** Where the stop steps are reported. */
  readonly log: (line: string) => void;
  /**
   * How often the parent process is checked for, in milliseconds.
   * @default 500
   */
  readonly parentPollMs?: number;
}

/** Thrown by {@link Shutdown.start} when the run began stopping while the step was starting. */
export class StoppingError extends Error {
  constructor() {
    super('The run is stopping');
    this.name = 'StoppingError';
  }
}

const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/**
 * Stops what a local run started, once, in reverse order, on every way the run can end:
 * SIGINT, SIGTERM, SIGHUP, the parent process going away (npm forwards SIGINT and SIGTERM
 * to its script but not SIGHUP, and nothing is forwarded when it is killed outright), a
 * start-up error and the run's own end. What is still starting when it begins is awaited and
 * stopped too, so a run interrupted during start-up leaves no process behind.
 *
 * @example
 * const shutdown = new Shutdown({ log: console.log }).install();
 * const stack = await shutdown.start('DynamoDB Local', startLocalPaymentsStack({ signal: shutdown.signal }));
 * await shutdown.run('done', 0);
 */
export class Shutdown {
  private readonly controller = new AbortController();
  private readonly steps: { readonly name: string; readonly stop: () => Promise<void> | void }[] = [];
  private readonly pending = new Set<Promise<unknown>>();
  private stopping?: Promise<never>;

  constructor(private readonly options: ShutdownOptions) {}

  /** Aborted as soon as the run begins stopping: start-up steps in progress give up. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** Stops on SIGINT, SIGTERM and SIGHUP (exit code 0), and when the parent process goes away. */
  install(): this {
    for (const name of SIGNALS) process.on(name, () => void this.run(`received ${name}`, 0));
    const parent = process.ppid;
    const watch = setInterval(() => {
      if (process.ppid !== parent) void this.run(`the parent process (pid ${parent}) exited`, 0);
    }, this.options.parentPollMs ?? 500);
    watch.unref();
    return this;
  }

  /**
   * Awaits a start-up step and registers its `stop`. When the run began stopping meanwhile,
   * the step is stopped with the rest and this throws {@link StoppingError}.
   */
  async start<T extends Stoppable>(name: string, starting: Promise<T>): Promise<T> {
    const tracked = starting.then((started) => {
      this.onStop(name, () => started.stop());
      return started;
    });
    this.pending.add(tracked);
    try {
      const started = await tracked;
      if (this.stopping) throw new StoppingError();
      return started;
    } finally {
      this.pending.delete(tracked);
    }
  }

  /** Registers a stop step; steps run in reverse order of registration. */
  onStop(name: string, stop: () => Promise<void> | void): void {
    this.steps.push({ name, stop });
  }

  /**
   * Stops everything registered, then exits with `exitCode`. Later calls return the first
   * call's promise: the first reason and exit code win.
   */
  run(reason: string, exitCode: number): Promise<never> {
    this.stopping ??= this.stopAll(reason, exitCode);
    return this.stopping;
  }

  private async stopAll(reason: string, exitCode: number): Promise<never> {
    this.options.log(`stopping (${reason})`);
    this.controller.abort();
    await Promise.allSettled([...this.pending]);
    for (const step of [...this.steps].reverse()) {
      try {
        await step.stop();
        this.options.log(`stopped ${step.name}`);
      } catch (error) {
        this.options.log(`could not stop ${step.name}: ${(error as Error).message}`);
      }
    }
    process.exit(exitCode);
  }
}

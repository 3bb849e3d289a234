import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { fork, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { stopProcess } from '../../src/testing/index.js';
import type { FiredFaults, KillPoint } from './dynamodb-faults.js';
import type { InvocationPlan } from './fault-schedule.js';

/** What every worker is started with. */
export interface WorkerConfig {
  readonly dynamodbEndpoint: string;
  readonly tables: { readonly journal: string; readonly payments: string };
  /** The Lambda timeout the handlers' contexts count down from (the guard's lease follows it). */
  readonly lambdaTimeoutMs: number;
}

/** Messages from the pool to a worker. */
export type ToWorker = {
  readonly type: 'invoke';
  readonly id: number;
  readonly routeKey: string;
  readonly event: APIGatewayProxyEventV2;
  readonly plan: InvocationPlan;
};

/** Messages from a worker to the pool. */
export type FromWorker =
  | { readonly type: 'ready' }
  | {
      readonly type: 'result';
      readonly id: number;
      readonly result: APIGatewayProxyStructuredResultV2;
      readonly fired: FiredFaults;
    }
  | { readonly type: 'error'; readonly id: number; readonly message: string; readonly fired: FiredFaults }
  | { readonly type: 'effect-begun'; readonly id: number }
  | { readonly type: 'kill-point'; readonly id: number; readonly point: KillPoint };

/** How an invocation ended. */
export type InvokeOutcome =
  | {
      readonly kind: 'result';
      readonly result: APIGatewayProxyStructuredResultV2;
      readonly fired: FiredFaults;
      readonly effectBegun: boolean;
    }
  | { readonly kind: 'error'; readonly message: string; readonly fired: FiredFaults }
  /** The worker died while holding it: `killedAt` when this invocation reached the kill point, else it died alongside. */
  | { readonly kind: 'killed'; readonly killedAt?: KillPoint; readonly effectBegun: boolean };

/** Options of {@link WorkerPool}. */
export interface WorkerPoolOptions {
  readonly size: number;
  readonly config: WorkerConfig;
  /** Each line a worker writes to stdout (the guard's JSON log lines). */
  readonly onLogLine: (line: string) => void;
  /** Called with the PID of a worker killed at a kill point, when the SIGKILL was sent. */
  readonly onKill: (pid: number, point: KillPoint) => void;
}

interface InFlight {
  readonly resolve: (outcome: InvokeOutcome) => void;
  effectBegun: boolean;
  killedAt?: KillPoint;
}

interface Worker {
  readonly child: ChildProcess;
  readonly inFlight: Map<number, InFlight>;
  /** Accepts invocations (false from its kill point on). */
  ready: boolean;
  /** Reported ready once. */
  started: boolean;
}

const WORKER_ENTRY = fileURLToPath(new URL('./worker.ts', import.meta.url));

/**
 * Child processes standing for Lambda instances of the example API. An invocation goes to
 * the ready worker holding the fewest; a worker that reaches a kill point is killed with
 * SIGKILL by its PID, every invocation it held ends as `killed` (unlike a Lambda instance, a
 * worker serves several at once), and a new worker takes its place, as Lambda starts a new
 * instance after a crash.
 *
 * @example
 * const pool = new WorkerPool({ size: 2, config, onLogLine, onKill });
 * await pool.start();
 * const outcome = await pool.invoke('POST /payments', event, plan);
 */
export class WorkerPool {
  private readonly workers = new Set<Worker>();
  private readonly waitingForReady: (() => void)[] = [];
  private nextId = 1;
  private stopping = false;
  /** Set when a worker died before it was ready: the handlers cannot load, so nothing is retried. */
  private broken?: Error;
  /** Workers started after the first ones, to replace killed ones. */
  restarts = 0;

  constructor(private readonly options: WorkerPoolOptions) {}

  /** Starts the workers and resolves once all are ready. */
  async start(): Promise<void> {
    await Promise.all(Array.from({ length: this.options.size }, () => this.spawn()));
  }

  /** Runs one invocation on a worker. */
  async invoke(routeKey: string, event: APIGatewayProxyEventV2, plan: InvocationPlan): Promise<InvokeOutcome> {
    const worker = await this.readyWorker();
    const id = this.nextId++;
    return new Promise<InvokeOutcome>((resolve) => {
      worker.inFlight.set(id, { resolve, effectBegun: false });
      worker.child.send({ type: 'invoke', id, routeKey, event, plan } satisfies ToWorker);
    });
  }

  /** Stops every worker by its PID (SIGTERM, then SIGKILL after a grace period). */
  async stop(): Promise<void> {
    this.stopping = true;
    await Promise.allSettled([...this.workers].map((worker) => stopProcess(worker.child.pid!, worker.child)));
  }

  private spawn(): Promise<void> {
    const child = fork(WORKER_ENTRY, [JSON.stringify(this.options.config)], {
      execArgv: ['--no-warnings', '--import', 'tsx'],
      env: { ...process.env, POWERTOOLS_METRICS_DISABLED: 'true', POWERTOOLS_LOG_LEVEL: 'INFO' },
      stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
    });
    const worker: Worker = { child, inFlight: new Map(), ready: false, started: false };
    this.workers.add(worker);
    createInterface({ input: child.stdout! }).on('line', this.options.onLogLine);
    return new Promise<void>((resolve, reject) => {
      child.on('message', (message: FromWorker) => {
        if (message.type === 'ready') {
          worker.ready = true;
          worker.started = true;
          this.waitingForReady.splice(0).forEach((wake) => wake());
          resolve();
        } else this.onMessage(worker, message);
      });
      child.once('exit', (code, signal) => {
        this.workers.delete(worker);
        for (const invocation of worker.inFlight.values())
          invocation.resolve({ kind: 'killed', killedAt: invocation.killedAt, effectBegun: invocation.effectBegun });
        worker.inFlight.clear();
        if (this.stopping) return resolve();
        if (!worker.started) {
          this.broken = new Error(`A soak worker exited during start-up (${signal ?? `code ${code}`})`);
          this.waitingForReady.splice(0).forEach((wake) => wake());
          return reject(this.broken);
        }
        this.restarts += 1;
        this.spawn().catch(() => undefined);
      });
    });
  }

  private onMessage(worker: Worker, message: Exclude<FromWorker, { type: 'ready' }>): void {
    const invocation = worker.inFlight.get(message.id);
    if (!invocation) return;
    switch (message.type) {
      case 'effect-begun':
        invocation.effectBegun = true;
        return;
      case 'kill-point':
        invocation.killedAt = message.point;
        worker.ready = false;
        process.kill(worker.child.pid!, 'SIGKILL');
        this.options.onKill(worker.child.pid!, message.point);
        return;
      case 'result':
        worker.inFlight.delete(message.id);
        invocation.resolve({
          kind: 'result',
          result: message.result,
          fired: message.fired,
          effectBegun: invocation.effectBegun,
        });
        return;
      case 'error':
        worker.inFlight.delete(message.id);
        invocation.resolve({ kind: 'error', message: message.message, fired: message.fired });
        return;
    }
  }

  private async readyWorker(): Promise<Worker> {
    for (;;) {
      if (this.broken) throw this.broken;
      const ready = [...this.workers].filter((worker) => worker.ready);
      if (ready.length > 0)
        return ready.reduce((least, worker) => (worker.inFlight.size < least.inFlight.size ? worker : least));
      await new Promise<void>((wake) => this.waitingForReady.push(wake));
    }
  }
}
